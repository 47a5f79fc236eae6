/// A container's state at one moment, for a health endpoint or a log (``ServiceContainer/status``).
public struct ContainerStatus: Sendable {
    /// Where the coordinator is.
    public struct State: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case idle, running, ready, waiting, failed, shuttingDown, shutDown
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Nothing runs; the next `start()` builds.
        public static let idle = State(.idle)
        /// A build of the eager services runs (or waits for a teardown to finish).
        public static let running = State(.running)
        /// A published snapshot holds the eager services: `start()` returns it at once. A
        /// request may be building lazy services meanwhile (``ContainerStatus/services`` says
        /// which). After a reset that carried every eager value over, the state is ``idle``
        /// until `start()` publishes them (it builds nothing).
        public static let ready = State(.ready)
        /// The last attempt of a service `start()` needs failed and the next is not allowed
        /// before ``ContainerStatus/nextAttemptAt``; once that time has passed, the state is
        /// ``idle`` (a status read then says so; ``ServiceContainer/statusUpdates`` sends no
        /// change for the passing of time).
        public static let waiting = State(.waiting)
        /// Sticky failure (permanent, or the attempt budget used up) of a service `start()`
        /// needs, until `reset()`. A lazy service's failure fails only the requests that need it:
        /// ``ContainerStatus/services`` shows it.
        public static let failed = State(.failed)
        /// A graceful shutdown lets the running build finish.
        public static let shuttingDown = State(.shuttingDown)
        /// Shut down.
        public static let shutDown = State(.shutDown)

        public var description: String { base.rawValue }
    }

    /// Where the coordinator is.
    public let state: State
    /// The current generation.
    public let generation: Int
    /// The attempt running, published, or next.
    public let attempt: Int
    /// The last build that finished, with every node's outcome.
    public let lastBuild: BuildReport?
    /// The failure the last build ended with (or the sticky one), if any. A build whose only
    /// failures are optional services' failed no request: it leaves none.
    public let lastFailure: ContainerError?
    /// When the next attempt is allowed (time since the container was created), while waiting.
    public let nextAttemptAt: Duration?
    /// The open scope instances (`push#notification-42`).
    public let openScopes: [String]
    /// Callers waiting for the running build.
    public let waitingCallers: Int
    /// Teardowns no reset or shutdown has reported yet (e.g. those of a permanent failure).
    public let unreportedTeardowns: [ServiceContainer.ResetReport.Teardown]
    /// Every service of the app graph, in declaration order, with its start policy and state
    /// (scoped services live in scope instances and are not listed).
    public let services: [Service]
    /// The input services of the app graph whose value the app has not supplied yet
    /// (``ServiceContainer/supply(_:_:)``), in declaration order.
    public let inputsNotSupplied: [String]

    /// The service named `name`, if the app graph declares it.
    public func service(_ name: String) -> Service? { services.first { $0.name == name } }
}
