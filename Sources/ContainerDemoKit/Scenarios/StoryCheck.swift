/// One claim a story makes about its run, and whether the run bore it out.
public struct StoryCheck: Sendable, Hashable, CustomStringConvertible {
    /// What the story claims, e.g. `one build shared by 4 callers`.
    public let claim: String
    /// Whether the run showed it.
    public let passed: Bool
    /// What was seen instead, when it failed.
    public let detail: String?

    /// A check of `claim`; `detail` says what was seen when it did not hold.
    public init(_ claim: String, _ passed: Bool, detail: String? = nil) {
        self.claim = claim
        self.passed = passed
        self.detail = passed ? nil : detail
    }

    public var description: String {
        (passed ? "✓ " : "✗ ") + claim + (detail.map { ": \($0)" } ?? "")
    }
}
