public import Container

/// A claim about a trace that can be checked: "database built once", "session skipped because
/// database", "launch resumed with the snapshot".
///
/// Check a list of them against recorded events; every failure is reported at once:
///
/// ```swift
/// let trace = TraceRecorder()   // or a TraceWatcher
/// // ... run the container with trace: [trace]
/// try trace.events.expect(.builtOnce("database"), .skipped("session", because: "database"))
/// ```
///
/// The standard ones are static members (`TraceExpectation+Nodes.swift`, `+Callers.swift`,
/// `+Builds.swift`); ``init(_:problem:)`` makes your own.
public struct TraceExpectation: Sendable {
    /// What is claimed, e.g. `database built once`.
    public let claim: String
    private let problem: @Sendable ([TraceEvent]) -> String?

    /// An expectation: `claim`, and how to find what contradicts it.
    ///
    /// - Parameters:
    ///   - claim: what is expected, as a short sentence.
    ///   - problem: returns what in the events contradicts the claim, or `nil` when it holds.
    public init(_ claim: String, problem: @escaping @Sendable ([TraceEvent]) -> String?) {
        self.claim = claim
        self.problem = problem
    }

    /// Checks the expectation against `events`.
    public func check(_ events: [TraceEvent]) -> CheckResult {
        let problem = problem(events)
        return CheckResult(claim, problem == nil, detail: problem)
    }

    /// Whether the expectation holds for `events`.
    public func holds(for events: [TraceEvent]) -> Bool { problem(events) == nil }
}

extension Array where Element == TraceEvent {
    /// Checks every expectation; returns each result, passed or not.
    public func check(_ expectations: [TraceExpectation]) -> [CheckResult] {
        expectations.map { $0.check(self) }
    }

    /// Checks every expectation and throws when any fails.
    /// - Throws: ``ExpectationFailure`` naming every expectation that failed and what was seen.
    public func expect(
        _ expectations: TraceExpectation..., fileID: String = #fileID, line: Int = #line
    ) throws(ExpectationFailure) {
        try expect(expectations, fileID: fileID, line: line)
    }

    /// Checks every expectation and throws when any fails.
    /// - Throws: ``ExpectationFailure`` naming every expectation that failed and what was seen.
    public func expect(
        _ expectations: [TraceExpectation], fileID: String = #fileID, line: Int = #line
    ) throws(ExpectationFailure) {
        let failed = check(expectations).filter { !$0.passed }
        guard failed.isEmpty else { throw ExpectationFailure(failed: failed, place: "\(fileID):\(line)") }
    }
}
