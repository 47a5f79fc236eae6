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
    private struct Consumer {
        var pending: Element?
        var waiter: CheckedContinuation<Element?, Never>?
    }

    private struct State {
        var consumers: [Int: Consumer] = [:]
        var nextID = 0
        /// The value a new consumer starts with (the newest offered, unless cleared since).
        var newest: Element?
        var isFinished = false
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
            state.consumers[state.nextID] = Consumer(pending: startingWithNewest ? state.newest : nil)
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
            for id in state.consumers.keys {
                if let waiter = state.consumers[id]?.waiter {
                    state.consumers[id]?.waiter = nil
                    wake.resumptions.append((waiter, value))
                } else {
                    state.consumers[id]?.pending = value
                }
            }
            return wake
        }
    }

    /// Forgets the newest value and every value not taken yet (it is no longer current).
    func clear() {
        state.withLock { state in
            state.newest = nil
            for id in state.consumers.keys { state.consumers[id]?.pending = nil }
        }
    }

    /// Ends every consumer: values not taken are dropped, waiting consumers get `nil`, and so
    /// does every later ``next(_:)`` and every later subscriber.
    func finish() -> Wake {
        state.withLock { state in
            guard !state.isFinished else { return Wake() }
            state.isFinished = true
            state.newest = nil
            let waiters = state.consumers.values.compactMap(\.waiter)
            subscribed.subtract(state.consumers.count, ordering: .relaxed)
            state.consumers = [:]
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
                    guard var consumer = state.consumers[id] else { return .some(nil) }
                    if let pending = consumer.pending {
                        consumer.pending = nil
                        state.consumers[id] = consumer
                        return .some(pending)
                    }
                    consumer.waiter = waiter
                    state.consumers[id] = consumer
                    return nil
                }
                if let answer { waiter.resume(returning: answer) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Whether consumer `id` waits for a value (for tests).
    func isWaiting(_ id: Int) -> Bool { state.withLock { $0.consumers[id]?.waiter != nil } }

    /// Ends consumer `id`: its wait, if it waits, ends with `nil`, and it holds no value any more.
    func cancel(_ id: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Element?, Never>? in
            guard let consumer = state.consumers.removeValue(forKey: id) else { return nil }
            subscribed.subtract(1, ordering: .relaxed)
            return consumer.waiter
        }
        waiter?.resume(returning: nil)
    }
}
