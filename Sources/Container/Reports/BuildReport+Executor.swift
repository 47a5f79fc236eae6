extension BuildReport {
    /// Where a node's provider ran: on the build's pool of threads, or on the main actor.
    ///
    /// A build report's nodes (``BuildReport/NodeReport/executor``) and the trace's `node.started`
    /// (`"executor"`) say it; a node runs on the main actor when its service is declared
    /// ``ServiceSpec/Isolation/main``.
    public struct Executor: Sendable, Hashable, CustomStringConvertible {
        private enum Base: UInt8, Hashable, Sendable { case pool, main }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The build's threads (the cooperative pool).
        public static let pool = Executor(.pool)
        /// The main actor.
        public static let main = Executor(.main)

        /// `pool` or `main`: the trace's word.
        public var description: String { base == .main ? "main" : "pool" }

        /// Whether it is the main actor.
        var isMain: Bool { base == .main }
    }
}
