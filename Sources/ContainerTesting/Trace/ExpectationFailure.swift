/// Thrown by `expect(...)` on a trace when an expectation does not hold; a test that lets it
/// propagate fails with its message, one line per failed claim.
public struct ExpectationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expectations that did not hold.
    public let failed: [CheckResult]
    /// Where the expectation was written (`Tests/MyTests.swift:42`).
    public let place: String?

    /// A failure of `failed`, written at `place`.
    public init(failed: [CheckResult], place: String? = nil) {
        self.failed = failed
        self.place = place
    }

    /// `trace expectations failed (MyTests.swift:42):` then `✗ claim: detail` per failure.
    public var description: String {
        let count = failed.count == 1 ? "a trace expectation failed" : "\(failed.count) trace expectations failed"
        return count + (place.map { " (\($0))" } ?? "") + ":\n" + failed.map { "  \($0)" }.joined(separator: "\n")
    }
}
