public import Container

/// A trace sink that records every event and lets a test wait until the trace shows something:
/// "resume me when three callers have joined", with a timeout that fails the test.
///
/// ```swift
/// let trace = TraceWatcher()
/// let container = ServiceContainer(graph: graph, trace: [trace])
/// let first = Task { try await container.start(as: "launch") }
/// try await trace.wait(for: "launch to join") { $0.contains { $0.kind.caller == "launch" } }
/// // ...
/// try trace.expect(.builtOnce("database"), .resumedWithSnapshot("launch"))
/// ```
///
/// Conditions are checked after each event, under the watcher's lock: keep them quick and pure.
public final class TraceWatcher: TraceSink {
    private struct Watch {
        let condition: @Sendable ([TraceEvent]) -> Bool
        let ticket: OneShot<Void>
    }

    private struct State {
        var events: [TraceEvent] = []
        var watches: [Watch] = []
    }

    private let state = Locked(State())

    /// A watcher with no events.
    public init() {}

    /// Records `event` and wakes the waits whose condition now holds.
    public func record(_ event: TraceEvent) {
        let ready = state.withLock { state -> [OneShot<Void>] in
            state.events.append(event)
            guard !state.watches.isEmpty else { return [] }
            let events = state.events
            var ready: [OneShot<Void>] = []
            // A wait that timed out or was cancelled is dropped here too.
            state.watches.removeAll { watch in
                if watch.ticket.isFinished { return true }
                guard watch.condition(events) else { return false }
                ready.append(watch.ticket)
                return true
            }
            return ready
        }
        for ticket in ready { ticket.finish(.success(())) }
    }

    /// Every event so far, in order.
    public var events: [TraceEvent] { state.withLock { $0.events } }

    /// How many events so far have the JSON Lines name `name` (`"caller.joined"`).
    public func count(_ name: String) -> Int { state.withLock { $0.events.count { $0.kind.name == name } } }

    /// Suspends until `condition` holds for the events recorded so far (returns at once when it does).
    ///
    /// - Parameters:
    ///   - what: what is awaited, for the error's message (`"3 callers to join"`).
    ///   - timeout: how long to wait (default 60 seconds, as `withTimeout`).
    ///   - fileID: the caller's file, for the message that points at the call (default: the call site).
    ///   - line: the caller's line (default: the call site).
    ///   - condition: checked now and after every event.
    /// - Throws: ``TimedOut`` after `timeout`; `CancellationError` when the task is cancelled.
    public func wait(
        for what: String, timeout: Duration = .seconds(60), fileID: String = #fileID, line: Int = #line,
        until condition: @escaping @Sendable ([TraceEvent]) -> Bool
    ) async throws {
        let ticket = OneShot<Void>()
        let holds = state.withLock { state in
            if condition(state.events) { return true }
            state.watches.append(Watch(condition: condition, ticket: ticket))
            return false
        }
        guard !holds else { return }
        try await ticket.value(cancellable: true, timeout: timeout, what: what, place: "\(fileID):\(line)")
    }

    /// Suspends until `expectation` holds for the events recorded so far.
    ///
    /// - Parameters:
    ///   - expectation: what must hold.
    ///   - timeout: how long to wait (default 60 seconds, as `withTimeout`).
    ///   - fileID: the caller's file, for the message that points at the call (default: the call site).
    ///   - line: the caller's line (default: the call site).
    /// - Throws: ``TimedOut`` after `timeout`; `CancellationError` when the task is cancelled.
    public func wait(
        for expectation: TraceExpectation, timeout: Duration = .seconds(60), fileID: String = #fileID,
        line: Int = #line
    ) async throws {
        try await wait(for: expectation.claim, timeout: timeout, fileID: fileID, line: line) {
            expectation.holds(for: $0)
        }
    }

    /// Checks every expectation against the events so far.
    ///
    /// - Parameters:
    ///   - expectations: what must hold.
    ///   - fileID: the caller's file, for the failure's message that points at the call (default: the call site).
    ///   - line: the caller's line (default: the call site).
    /// - Throws: ``ExpectationFailure`` naming every expectation that failed and what was seen.
    public func expect(
        _ expectations: TraceExpectation..., fileID: String = #fileID, line: Int = #line
    ) throws(ExpectationFailure) {
        try events.expect(expectations, fileID: fileID, line: line)
    }

    /// Checks every expectation against the events so far (for a list such as
    /// ``TraceInvariants/expectations(for:)``).
    ///
    /// - Parameters:
    ///   - expectations: what must hold.
    ///   - fileID: the caller's file, for the failure's message that points at the call (default: the call site).
    ///   - line: the caller's line (default: the call site).
    /// - Throws: ``ExpectationFailure`` naming every expectation that failed and what was seen.
    public func expect(
        _ expectations: [TraceExpectation], fileID: String = #fileID, line: Int = #line
    ) throws(ExpectationFailure) {
        try events.expect(expectations, fileID: fileID, line: line)
    }
}
