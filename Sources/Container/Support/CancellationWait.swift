/// Suspends the current task until it is cancelled: for a task whose work is over but whose end
/// must come from the cancellation it knows is on its way (a scope instance's fetch whose close
/// order the parent has decided and not yet delivered), without spinning meanwhile.
enum CancellationWait {
    /// Where one wait is.
    private enum State {
        /// Not cancelled, not suspended yet.
        case idle
        /// Suspended on this continuation.
        case waiting(CheckedContinuation<Void, Never>)
        /// Cancelled: a suspension that comes now returns at once.
        case cancelled
    }

    /// Returns once the current task is cancelled (at once if it is already).
    static func untilCancelled() async {
        let state = Locked(State.idle)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard case .idle = state else { return true }
                    state = .waiting(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state = .cancelled }
                guard case .waiting(let continuation) = state else { return nil }
                return continuation
            }
            waiting?.resume()
        }
    }
}
