/// What one build attempt did, node by node.
public struct BuildReport: Sendable, CustomStringConvertible {
    /// One node's part in the build.
    public struct NodeReport: Sendable, Hashable {
        /// The node's name.
        public let name: String
        /// How it ended.
        public let outcome: NodeOutcome
        /// How many times its provider ran in this attempt (retries included; 0 when it did not run).
        public let runs: Int
        /// When its provider first started, since the container was created.
        public let startedAt: Duration?
        /// When it reached its outcome, since the container was created.
        public let endedAt: Duration?
    }

    /// The generation built.
    public let generation: Int
    /// The attempt within the generation (1-based).
    public let attempt: Int
    /// Every node, in declaration order.
    public let nodes: [NodeReport]
    /// When the build started and ended, since the container was created.
    public let startedAt: Duration
    /// See ``startedAt``.
    public let endedAt: Duration
    /// Whether the build was cancelled by a reset or shutdown.
    public let wasCancelled: Bool

    /// The generation and attempt built.
    public var build: BuildAttempt { BuildAttempt(generation: generation, attempt: attempt) }

    /// Wall time of the build.
    public var duration: Duration { endedAt - startedAt }

    /// The nodes that failed (the roots of the failure), in declaration order.
    public var failedNodes: [String] {
        nodes.compactMap { if case .failed = $0.outcome { $0.name } else { nil } }
    }

    /// `nil` when every node has a value; otherwise permanent if any node failed permanently, else transient.
    public var failure: FailureKind? {
        var failure: FailureKind?
        for node in nodes {
            switch node.outcome {
            case .succeeded, .reused: continue
            case .failed(let nodeFailure) where nodeFailure.kind == .permanent: return .permanent
            case .failed, .skipped, .cancelled: failure = .transient
            }
        }
        return failure
    }

    /// Whether every node has a value.
    public var succeeded: Bool { failure == nil && !wasCancelled }

    /// The report of `name`, if the graph has such a node.
    public func node(_ name: String) -> NodeReport? { nodes.first { $0.name == name } }

    /// The outcome of `name`, if the graph has such a node.
    public func outcome(of name: String) -> NodeOutcome? { node(name)?.outcome }

    public var description: String {
        let state = succeeded ? "succeeded" : wasCancelled ? "cancelled" : "failed (\(failure?.description ?? "?"))"
        var lines = [
            "build of generation \(generation), attempt \(attempt): \(state) in \(duration.formattedMilliseconds)"
        ]
        for node in nodes { lines.append("  \(node.name): \(node.outcome)") }
        return lines.joined(separator: "\n")
    }
}
