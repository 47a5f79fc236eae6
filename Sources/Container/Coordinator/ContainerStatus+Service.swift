extension ContainerStatus {
    /// One service of the app graph at one moment (``ContainerStatus/services``): whether it is
    /// built in the current generation, building, failed, or not asked for yet.
    public struct Service: Sendable, Hashable, CustomStringConvertible {
        /// Where one service is in the current generation.
        public struct State: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Hashable, Sendable {
                case built, building, waitingForInput, failed, skipped, notRequested
            }
            private let base: Base
            private init(_ base: Base) { self.base = base }

            /// Its value is in the generation: snapshots published from now on hold it.
            public static let built = State(.built)
            /// The build in flight runs it, or will once its dependencies are built.
            public static let building = State(.building)
            /// An input a request needs, whose value the app has not supplied yet
            /// (``ServiceContainer/supply(_:_:)``).
            public static let waitingForInput = State(.waitingForInput)
            /// It failed, or its attempts are used up: the next request that needs it retries it
            /// once allowed (``ContainerStatus/nextAttemptAt``), or never before `reset()` when the
            /// failure is sticky.
            public static let failed = State(.failed)
            /// The last build needed it but did not run it: a dependency failed (its state says
            /// whether it is retried), or the build was cancelled.
            public static let skipped = State(.skipped)
            /// No value and nothing building it; the next request that needs it builds it. Nothing
            /// asked for it in this generation yet (a lazy or deferred service, or any service
            /// before the first request), or its value was let go when everything that needed it
            /// failed for good.
            public static let notRequested = State(.notRequested)

            public var description: String { base.rawValue }
        }

        /// The service's name.
        public let name: String
        /// When it is built (see <doc:DemandDrivenStartUp>).
        public let start: StartPolicy
        /// Where it is.
        public let state: State

        public var description: String { "\(name) (\(start)): \(state)" }
    }
}
