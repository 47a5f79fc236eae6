import Synchronization
import TestSupport
import Testing

@testable import Container

/// A trace sink that records events and lets a test wait until the trace satisfies a condition.
final class TraceWatcher: TraceSink {
    private struct Waiter {
        let predicate: @Sendable ([TraceEvent]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }
    private let state = Locked<(events: [TraceEvent], waiters: [Waiter])>(([], []))

    func record(_ event: TraceEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            var ready: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(state.events) else { return false }
                ready.append(waiter.continuation)
                return true
            }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    var events: [TraceEvent] { state.withLock { $0.events } }

    /// Suspends until `predicate` holds for the recorded events; fails the test after `seconds`.
    func wait(
        _ what: String, seconds: Double = 10, until predicate: @escaping @Sendable ([TraceEvent]) -> Bool
    ) async throws {
        try await withTimeout(seconds, what) {
            await withCheckedContinuation { continuation in
                let satisfied = self.state.withLock { state -> Bool in
                    if predicate(state.events) { return true }
                    state.waiters.append(Waiter(predicate: predicate, continuation: continuation))
                    return false
                }
                if satisfied { continuation.resume() }
            }
        }
    }

    func count(_ name: String) -> Int { events.count { $0.kind.name == name } }
}
