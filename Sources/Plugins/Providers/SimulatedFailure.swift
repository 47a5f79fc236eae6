public import Container

/// The error a `simulated` node throws for a `transient` or `permanent` outcome.
public struct SimulatedFailure: ClassifiedError, Sendable, Hashable, CustomStringConvertible {
    /// The node.
    public let node: String
    /// The node's run within its generation (1-based).
    public let run: Int
    /// How the failure is classified.
    public let failureKind: FailureKind

    /// Creates a failure.
    public init(node: String, run: Int, failureKind: FailureKind) {
        self.node = node
        self.run = run
        self.failureKind = failureKind
    }

    /// `simulated transient failure of 'node' (run 1)`.
    public var description: String { "simulated \(failureKind) failure of '\(node)' (run \(run))" }
}
