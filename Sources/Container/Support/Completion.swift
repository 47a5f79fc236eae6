/// A one-shot completion that tasks can await: the runtime's own barrier (a parent's teardown
/// waits for the scope instances it superseded to finish theirs). Never used for user code.
///
/// A struct over its one lock (copies share it): every scope instance has one, and a class
/// around the lock was a second allocation per instance.
struct Completion: Sendable {
    private let state = Locked<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Marks it complete and resumes everyone waiting; later calls do nothing.
    func complete() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.done else { return [] }
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once ``complete()`` was called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
