import Container
import Synchronization

/// A gate a scenario holds closed to keep a provider waiting, and opens when the story says so.
///
/// This orders events without sleeping: the provider awaits ``wait()``; the scenario calls
/// ``open()`` once the callers are where it wants them. A waiter whose task is cancelled
/// stops waiting with `CancellationError`.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelledEarly: Set<Int> = []
    }

    private let state = Locked(State())

    init() {}

    /// Suspends until the gate is open; returns at once when it already is.
    /// - Throws: `CancellationError` when the waiting task is cancelled.
    func wait() async throws {
        let id: Int? = state.withLock { state in
            if state.isOpen { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Result<Void, any Error>? = state.withLock { state in
                    if state.isOpen { return .success(()) }
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    // Cancelled before it registered: the registration sees this and throws.
                    if !state.isOpen { state.cancelledEarly.insert(id) }
                    return nil
                }
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Opens the gate and lets every waiter through (now and later).
    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
