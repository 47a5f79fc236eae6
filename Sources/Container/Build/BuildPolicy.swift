/// How a build reacts to a failed node, and how it classifies errors.
public struct BuildPolicy: Sendable {
    /// What happens to the rest of the graph when a node fails.
    public struct FailureMode: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable { case continueIndependent, failFast }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Dependents of the failed node are skipped; independent branches go on and their
        /// values are kept for the next attempt (the default).
        public static let continueIndependent = FailureMode(.continueIndependent)
        /// The first failure cancels every running node and nothing else starts.
        public static let failFast = FailureMode(.failFast)

        public var description: String { base.rawValue }
    }

    /// What happens to the rest of the graph when a node fails.
    public var failureMode: FailureMode
    /// The container-wide default classifier (see ``ErrorClassifier``).
    public var classifier: ErrorClassifier

    /// Creates a policy.
    public init(failureMode: FailureMode = .continueIndependent, classifier: ErrorClassifier = .default) {
        self.failureMode = failureMode
        self.classifier = classifier
    }

    /// Independent branches continue; unclassified errors are transient.
    public static let `default` = BuildPolicy()
    /// The first failure cancels the build.
    public static let failFast = BuildPolicy(failureMode: .failFast)
}
