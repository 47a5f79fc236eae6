/// How a build reacts to a failed node, how it classifies errors, and how many build
/// attempts one generation may have (its attempt budget: see <doc:AttemptBudget>).
///
/// ```swift
/// // At most 3 builds per generation, the second at least 1 s after the first failed,
/// // the third 2 s after the second.
/// let policy = BuildPolicy(maxAttempts: 3, retryAfter: Backoff(initialDelay: .seconds(1)))
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
    /// The container-wide default classifier (see ``ErrorClassifier``).
    public var classifier: ErrorClassifier
    /// The most build attempts one generation may have (1 to ``maximumAttempts``); `nil`: no
    /// limit. When the last allowed attempt fails transiently, the generation fails with
    /// ``ContainerError/Code/attemptsExhausted``, sticky until `reset()`. However many callers
    /// call `start()`, a generation never gets more builds than this.
    public var maxAttempts: Int?
    /// The least time between a failed attempt and the next one: a caller that arrives sooner
    /// gets the last failure at once, without a build (its `caller.joined` finds `waiting`).
    /// The delay grows with each failed attempt of the generation. ``Backoff/none`` by default.
    public var retryAfter: Backoff
    /// How much provider work a build may run in its own task, one node after another, rather
    /// than in child tasks: a node whose provider took at most this long when it last ran (in
    /// any build of the same graph) runs inline while the queued inline work stays within it.
    /// A provider that returns in a microsecond costs less than the child task that would run
    /// it (its creation and the wake-up of a thread), so every build after the first of a scope
    /// of quick services needs no child task at all. A node never waits more than this for
    /// quick nodes ahead of it. A caller's `start()` of a build of at most 16 nodes whose last
    /// runs add up to at most the budget (a scope instance of quick services, or the few
    /// services a partial reset or a reload left to build) runs the build on the caller's own
    /// thread, up to its first suspension: no thread is woken, and the caller is held up no
    /// longer than the budget. `.zero` turns both off; they apply to untraced builds that
    /// continue independent branches (traced and fail-fast builds see each result as it comes).
    /// Clamped to 0...``maximumInlineBudget``; 20 µs by default.
    public var inlineBudget: Duration {
        get { storedInlineBudget }
        set { storedInlineBudget = Self.clampedInlineBudget(newValue) }
    }
    private var storedInlineBudget: Duration

    /// The largest ``maxAttempts``.
    public static let maximumAttempts = 1_000
    /// The largest ``inlineBudget``: beyond a millisecond, a child task costs nothing in comparison.
    public static let maximumInlineBudget = Duration.milliseconds(1)

    /// Creates a policy; `maxAttempts` is clamped to 1...``maximumAttempts``, `inlineBudget` to
    /// 0...``maximumInlineBudget``.
    public init(
        failureMode: FailureMode = .continueIndependent, classifier: ErrorClassifier = .default,
        maxAttempts: Int? = nil, retryAfter: Backoff = .none, inlineBudget: Duration = .microseconds(20)
    ) {
        storedInlineBudget = Self.clampedInlineBudget(inlineBudget)
        self.failureMode = failureMode
        self.classifier = classifier
        self.maxAttempts = maxAttempts.map { min(max(1, $0), Self.maximumAttempts) }
        self.retryAfter = retryAfter
    }

    private static func clampedInlineBudget(_ budget: Duration) -> Duration {
        min(max(.zero, budget), maximumInlineBudget)
    }

    /// Whether a build may run nodes in its own task beside its child tasks (the last node to
    /// start, quick nodes): only when nothing watches the order in which results come in
    /// (untraced) and a failure stops nothing (``FailureMode/continueIndependent``).
    func runsNodesInline(traced: Bool) -> Bool { !traced && failureMode == .continueIndependent }

    /// ``inlineBudget`` in nanoseconds for a build that is `traced` or not; 0 when it runs no
    /// quick node inline (see ``runsNodesInline(traced:)``).
    func inlineNanoseconds(traced: Bool) -> UInt32 {
        runsNodesInline(traced: traced) ? NodeRunTimes.nanoseconds(inlineBudget) : 0
    }

    /// Independent branches continue; unclassified errors are transient.
    public static let `default` = BuildPolicy()
    /// The first failure cancels the build.
    public static let failFast = BuildPolicy(failureMode: .failFast)
}
