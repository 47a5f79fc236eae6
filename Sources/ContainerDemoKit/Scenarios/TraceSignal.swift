import Container
import Synchronization

/// A trace sink a scenario can wait on: "resume me when the trace shows X".
///
/// Every wait has a timeout, so a story that goes wrong ends with a clear message instead
/// of hanging.
final class TraceSignal: TraceSink {
    private struct Waiter {
        let condition: @Sendable ([TraceEvent]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [TraceEvent] = []
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
        /// Waits whose timer fired before they registered.
        var expired: Set<Int> = []
    }

    private let state = Locked(State())

    init() {}

    func record(_ event: TraceEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.events.append(event)
            let events = state.events
            let satisfied = state.waiters.filter { $0.value.condition(events) }
            for id in satisfied.keys { state.waiters[id] = nil }
            return satisfied.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// Every event so far.
    var events: [TraceEvent] { state.withLock { $0.events } }

    /// Waits until `condition` holds for the events recorded so far.
    ///
    /// - Returns: `true` when it holds, `false` when `timeout` passed first.
    func wait(
        for timeout: Duration = .seconds(30), until condition: @escaping @Sendable ([TraceEvent]) -> Bool
    ) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        // The timer only bounds the wait; it never orders events.
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            self?.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if condition(state.events) { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)
                return nil as Waiter?
            }
            return waiter
        }
        waiter?.continuation.resume(returning: false)
    }
}
