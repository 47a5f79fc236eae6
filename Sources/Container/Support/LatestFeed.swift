import Synchronization

/// A multicast of the newest value: every consumer gets the values offered after it subscribed,
/// each at most once and in order; one that lags behind gets only the newest (never a backlog).
///
/// The producer offers values in its own critical section (the order of its offers is the
/// order every consumer sees); what an offer wakes is resumed by the producer after it
/// unlocked (``Wake/resume()``), so no continuation runs under anyone's lock. The feed's own
/// lock is a leaf: nothing is called while it is held.
///
/// States of one consumer: waiting for a value (a continuation), holding one not yet taken
/// (`pending`), or neither; ``finish()`` and ``cancel(_:)`` end it.
final class LatestFeed<Element: Sendable>: Sendable {
    /// The consumers, in parallel arrays (a few, walked on every offer: no hashing, no
    /// per-entry generic accessor).
    private struct State {
        var ids: [Int] = []
        /// A value offered and not taken yet, per consumer.
        var pending: [Element?] = []
        /// The continuation of a consumer waiting for a value.
        var waiters: [CheckedContinuation<Element?, Never>?] = []
        var nextID = 0
        /// The value a new consumer starts with (the newest offered, unless cleared since).
        var newest: Element?
        var isFinished = false

        func index(of id: Int) -> Int? { ids.firstIndex(of: id) }

        mutating func remove(at index: Int) -> CheckedContinuation<Element?, Never>? {
            ids.remove(at: index)
            pending.remove(at: index)
            return waiters.remove(at: index)
        }
    }

    /// Continuations an offer or an end woke, with what each gets: resume after unlocking.
    struct Wake: Sendable {
        fileprivate var resumptions: [(CheckedContinuation<Element?, Never>, Element?)] = []

        /// Whether there is nothing to resume.
        var isEmpty: Bool { resumptions.isEmpty }

        /// Resumes every woken consumer, each exactly once.
        func resume() {
            for (waiter, value) in resumptions { waiter.resume(returning: value) }
        }
    }

    private let state = Locked(State())
    /// How many consumers are subscribed, changed under the lock: a producer that makes values
    /// only for consumers reads it without locking.
    private let subscribed = Atomic<Int>(0)

    /// Whether a consumer is subscribed (a hint: read without the lock).
    var hasConsumers: Bool { subscribed.load(ordering: .relaxed) > 0 }

    /// A new consumer's id; with `startingWithNewest`, its first value is the newest one
    /// offered, when there is one, otherwise the first offered after it subscribed.
    func subscribe(startingWithNewest: Bool = true) -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            guard !state.isFinished else { return state.nextID }
            state.ids.append(state.nextID)
            state.pending.append(startingWithNewest ? state.newest : nil)
            state.waiters.append(nil)
            subscribed.add(1, ordering: .relaxed)
            return state.nextID
        }
    }

    /// Offers `value` to every consumer: a waiting one is woken with it, any other holds it in
    /// place of the value it had not taken yet.
    func offer(_ value: Element) -> Wake {
        state.withLock { state in
            guard !state.isFinished else { return Wake() }
            state.newest = value
            var wake = Wake()
            for index in state.ids.indices {
                if let waiter = state.waiters[index] {
                    state.waiters[index] = nil
                    wake.resumptions.append((waiter, value))
                } else {
                    state.pending[index] = value
                }
            }
            return wake
        }
    }

    /// Forgets the newest value and every value not taken yet (it is no longer current).
    func clear() {
        state.withLock { state in
            state.newest = nil
            for index in state.pending.indices { state.pending[index] = nil }
        }
    }

    /// Ends every consumer: values not taken are dropped, waiting consumers get `nil`, and so
    /// does every later ``next(_:)`` and every later subscriber.
    func finish() -> Wake {
        state.withLock { state in
            guard !state.isFinished else { return Wake() }
            state.isFinished = true
            state.newest = nil
            let waiters = state.waiters.compactMap { $0 }
            subscribed.subtract(state.ids.count, ordering: .relaxed)
            state.ids = []
            state.pending = []
            state.waiters = []
            return Wake(resumptions: waiters.map { ($0, nil) })
        }
    }

    /// The next value of consumer `id`: at once when one is pending, otherwise once one is
    /// offered; `nil` once the feed finished or the consumer was cancelled (also when its task
    /// is cancelled while it waits).
    func next(_ id: Int) async -> Element? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Element?, Never>) in
                let answer: Element?? = state.withLock { state in
                    guard let index = state.index(of: id) else { return .some(nil) }
                    if let pending = state.pending[index] {
                        state.pending[index] = nil
                        return .some(pending)
                    }
                    state.waiters[index] = waiter
                    return nil
                }
                if let answer { waiter.resume(returning: answer) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Whether a consumer holds a value it has not taken yet (for tests).
    var hasPending: Bool { state.withLock { $0.pending.contains { $0 != nil } } }

    /// Whether consumer `id` waits for a value (for tests).
    func isWaiting(_ id: Int) -> Bool {
        state.withLock { state in state.index(of: id).map { state.waiters[$0] != nil } ?? false }
    }

    /// Ends consumer `id`: its wait, if it waits, ends with `nil`, and it holds no value any more.
    func cancel(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            guard let index = state.index(of: id) else { return nil }
            subscribed.subtract(1, ordering: .relaxed)
            return state.remove(at: index)
        }
        waiter?.resume(returning: nil)
    }
}
