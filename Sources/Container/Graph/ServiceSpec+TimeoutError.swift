extension ServiceSpec {
    /// A node's provider did not finish within the node's `timeout`; always transient.
    public struct TimeoutError: ClassifiedError, Sendable, CustomStringConvertible {
        /// The node that timed out.
        public let service: String
        /// The timeout that was exceeded.
        public let timeout: Duration

        public var failureKind: FailureKind { .transient }

        public var description: String {
            "service '\(service)' did not finish within its timeout of \(timeout.formattedMilliseconds)"
        }
    }
}
