/// One claim about a run, and whether the run bore it out: what ``TraceExpectation`` and
/// ``TraceInvariants`` report, and what the demo prints after each story.
public struct CheckResult: Sendable, Hashable, CustomStringConvertible {
    /// What is claimed, e.g. `one build for all 4 callers`.
    public let claim: String
    /// Whether the run showed it.
    public let passed: Bool
    /// What was seen instead, when it failed.
    public let detail: String?

    /// A check of `claim`; `detail` says what was seen when it did not hold (dropped when it did).
    public init(_ claim: String, _ passed: Bool, detail: String? = nil) {
        self.claim = claim
        self.passed = passed
        self.detail = passed ? nil : detail
    }

    /// `✓ claim`, or `✗ claim: detail`.
    public var description: String {
        (passed ? "✓ " : "✗ ") + claim + (detail.map { ": \($0)" } ?? "")
    }
}
