import Dispatch

/// How a parked caller is answered: a task's continuation (`start()` and every async request),
/// or a thread that blocks until its answer comes (``ServiceContainer/resolveNow(_:as:isolation:)``).
///
/// The continuation is unchecked: the state machine answers each caller exactly once (its
/// invariants, the randomized checker and the resumption-counting tests hold it to that), so a
/// checked continuation's canary, an allocation per caller, would only guard what they prove.
enum CallerWaiter: Sendable {
    case task(UnsafeContinuation<AppServices, any Error>)
    case thread(BlockedCaller)
}

/// A caller's thread, blocked until the coordinator answers it (see ``CallerWaiter``).
final class BlockedCaller: Sendable {
    private let outcome = Locked<CoordinatorCore.Machine.CallerOutcome?>(nil)
    /// Signalled once, by the answer.
    private let answered = DispatchSemaphore(value: 0)

    /// Whether the answer came.
    var isAnswered: Bool { outcome.withLock { $0 != nil } }

    /// Gives the caller its answer (once: the coordinator answers each caller exactly once).
    func answer(_ answer: CoordinatorCore.Machine.CallerOutcome) {
        outcome.withLock { $0 = answer }
        answered.signal()
    }

    /// Blocks the calling thread until the answer comes, and returns it.
    func wait() -> CoordinatorCore.Machine.CallerOutcome {
        answered.wait()
        guard let answer = outcome.withLock({ $0 }) else { preconditionFailure("a blocked caller woke unanswered") }
        return answer
    }
}
