/// How a build reacts to a failed node, how it classifies errors, and how many build
/// attempts one generation may have (its attempt budget: see <doc:AttemptBudget>).
///
/// ```swift
/// // At most 3 builds per generation, the second at least 1 s after the first failed,
/// // the third 2 s after the second.
/// let policy = BuildPolicy(maxAttempts: 3, retryAfter: RetryPolicy.Backoff(initialDelay: .seconds(1)))
/// ```
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
    /// The container-wide default classifier (see ``BuildPolicy/ErrorClassifier``).
    public var classifier: BuildPolicy.ErrorClassifier
    /// The most build attempts one generation may have (1 to ``maximumAttempts``); `nil`: no
    /// limit. When the last allowed attempt fails transiently, the generation fails with
    /// ``ContainerError/Code/attemptsExhausted``, sticky until `reset()`. However many callers
    /// call `start()`, a generation never gets more builds than this.
    public var maxAttempts: Int?
    /// The least time between a failed attempt and the next one: a caller that arrives sooner
    /// gets the last failure at once, without a build (its `caller.joined` finds `waiting`).
    /// The delay grows with each failed attempt of the generation. ``RetryPolicy/Backoff/none`` by default.
    public var retryAfter: RetryPolicy.Backoff
    /// The largest ``maxAttempts``.
    public static let maximumAttempts = 1_000
    /// Creates a policy; `maxAttempts` is clamped to 1...``maximumAttempts``.
    public init(
        failureMode: FailureMode = .continueIndependent, classifier: BuildPolicy.ErrorClassifier = .default,
        maxAttempts: Int? = nil, retryAfter: RetryPolicy.Backoff = .none
    ) {
        self.failureMode = failureMode
        self.classifier = classifier
        self.maxAttempts = maxAttempts.map { min(max(1, $0), Self.maximumAttempts) }
        self.retryAfter = retryAfter
    }

    /// Independent branches continue; unclassified errors are transient.
    public static let `default` = BuildPolicy()
    /// The first failure cancels the build.
    public static let failFast = BuildPolicy(failureMode: .failFast)
}
