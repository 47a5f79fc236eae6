/// How one node of one build attempt ended. Every node ends in exactly one outcome.
public enum NodeOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The provider made the value.
    case succeeded(duration: Duration)
    /// The value was kept from an earlier attempt or generation; the provider did not run.
    case reused
    /// The provider ran and failed.
    case failed(Failure)
    /// The provider never ran because these upstream nodes failed.
    case skipped(because: [String])
    /// The build was cancelled (a reset, or fail-fast after another node failed).
    case cancelled(NodeOutcome.CancellationPhase)

    /// Whether the node has a value (it succeeded now or earlier).
    public var hasValue: Bool {
        switch self {
        case .succeeded, .reused: true
        case .failed, .skipped, .cancelled: false
        }
    }

    /// A one-word name: `succeeded`, `reused`, `failed`, `skipped`, `cancelled`.
    public var name: String {
        switch self {
        case .succeeded: "succeeded"
        case .reused: "reused"
        case .failed: "failed"
        case .skipped: "skipped"
        case .cancelled: "cancelled"
        }
    }

    public var description: String {
        switch self {
        case .succeeded(let duration): "succeeded in \(duration.formattedMilliseconds)"
        case .reused: "reused"
        case .failed(let failure): "failed (\(failure.kind)): \(failure.message)"
        case .skipped(let because): "skipped because \(because.joined(separator: ", ")) failed"
        case .cancelled(let phase): "cancelled \(phase)"
        }
    }
}

extension NodeOutcome {
    /// When a node was cancelled.
    public enum CancellationPhase: String, Sendable, Hashable, CustomStringConvertible {
        /// The node had not started.
        case beforeStart
        /// The node's provider was running.
        case whileRunning

        public var description: String { rawValue }
    }
}

extension NodeOutcome {
    /// A node's failure: its classification and its (redacted) error.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// Transient or permanent.
        public let kind: FailureKind
        /// The error's text, with secrets redacted.
        public let message: String
        /// The error the provider threw, for programmatic handling (`failure.error as? MyError`).
        ///
        /// Unlike ``message`` it is **not redacted**: do not print or log it; print ``message``.
        public let error: any Error

        /// Creates a failure.
        public init(kind: FailureKind, message: String, error: any Error) {
            self.kind = kind
            self.message = message
            self.error = error
        }

        public var description: String { "\(kind): \(message)" }

        public static func == (lhs: Failure, rhs: Failure) -> Bool {
            lhs.kind == rhs.kind && lhs.message == rhs.message
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(message)
        }
    }
}
