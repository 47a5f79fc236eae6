import Synchronization

/// A multicast of the newest value: every consumer gets the values offered after it subscribed,
/// each at most once and in order; one that lags behind gets only the newest (never a backlog).
///
/// The producer offers values in its own critical section (the order of its offers is the
/// order every consumer sees); what an offer wakes is resumed by the producer after it
/// unlocked (``Wake/resume()``), so no continuation runs under anyone's lock. The feed's own
/// lock is a leaf: nothing is called while it is held.
///
/// States of one consumer: waiting for a value (one continuation per `next(_:)` call, answered
/// in the order of the calls), behind the newest event (the newest value, or a clear's notice,
/// is pending for it), or neither; ``finish()`` and ``cancel(_:)`` end it. What is pending is
/// not stored per consumer but found from the version it saw last: an offer touches only the
/// consumers that wait, so consumers that are subscribed and busy cost it nothing.
final class LatestFeed<Element: Sendable>: Sendable {
    typealias Waiter = CheckedContinuation<Element?, Never>

    /// The consumers, in parallel arrays (a few, walked on every offer: no hashing, no
    /// per-entry generic accessor).
    private struct State {
        var ids: [Int] = []
        /// The version of the newest event a consumer took or had nothing from, per consumer:
        /// below ``version``, the newest event is pending for it.
        var seen: [Int] = []
        /// The continuation of a consumer's earliest waiting `next(_:)`.
        var waiters: [Waiter?] = []
        /// Whether a consumer is given the notices of ``clear(telling:)``.
        var takesClears: [Bool] = []
        /// The later `next(_:)` calls of consumers that wait already (copies of one iterator
        /// waiting at once), in the order they were made; usually empty.
        var queued: [(id: Int, waiter: Waiter)] = []
        var nextID = 0
        /// How many `next(_:)` calls had to wait so far (for tests).
        var waits = 0
        /// The value a new consumer starts with (the newest offered, unless cleared since).
        var newest: Element?
        /// The notice of the newest event when it was a clear that told one.
        var notice: Element?
        /// How many events (offers and clears) there were.
        var version = 0
        var isFinished = false

        func index(of id: Int) -> Int? { ids.firstIndex(of: id) }

        /// What consumer `index` has not taken yet: the newest value, or the notice of a clear
        /// for a consumer that takes them.
        func pending(at index: Int) -> Element? {
            guard seen[index] < version else { return nil }
            return newest ?? (takesClears[index] ? notice : nil)
        }

        /// Gives `value` to the earliest waiting call of consumer `index` (its next call moves up).
        mutating func give(_ value: Element, at index: Int, _ wake: inout Wake) {
            guard let waiter = waiters[index] else { return }
            wake.resumptions.append((waiter, value))
            seen[index] = version
            waiters[index] = nil
            guard !queued.isEmpty, let next = queued.firstIndex(where: { $0.id == ids[index] }) else { return }
            waiters[index] = queued.remove(at: next).waiter
        }

        /// Removes consumer `index`; returns its waiting calls.
        mutating func remove(at index: Int) -> [Waiter] {
            let id = ids.remove(at: index)
            seen.remove(at: index)
            takesClears.remove(at: index)
            guard let first = waiters.remove(at: index) else { return [] }
            var removed = [first]
            if !queued.isEmpty {
                removed += queued.lazy.filter { $0.id == id }.map(\.waiter)
                queued.removeAll { $0.id == id }
            }
            return removed
        }
    }

    /// Continuations an offer or an end woke, with what each gets: resume after unlocking.
    struct Wake: Sendable {
        fileprivate var resumptions: [(Waiter, Element?)] = []
        /// The feed's address: what its producer did before the hand-off happens before what
        /// the woken consumers do next, told to ThreadSanitizer (see ``LatestFeed/next(_:)``).
        fileprivate var feed: UInt = 0

        /// Whether there is nothing to resume.
        var isEmpty: Bool { resumptions.isEmpty }

        /// Resumes every woken consumer, each exactly once.
        func resume() {
            guard !resumptions.isEmpty else { return }
            // The runtime orders this resumption before the consumer's next step, out of
            // ThreadSanitizer's sight: said here, as callers' hand-offs are.
            ThreadSanitizerHooks.release?(UnsafeRawPointer(bitPattern: feed))
            for (waiter, value) in resumptions { waiter.resume(returning: value) }
        }
    }

    /// The address ``Wake`` and ``next(_:)`` name to ThreadSanitizer.
    private var handOff: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

    private let state = Locked(State())
    /// How many consumers are subscribed, changed under the lock: a producer that makes values
    /// only for consumers reads it without locking.
    private let subscribed = Atomic<Int>(0)

    /// Whether a consumer is subscribed (a hint: read without the lock).
    var hasConsumers: Bool { subscribed.load(ordering: .relaxed) > 0 }

    /// A new consumer's id; with `startingWithNewest`, its first value is the newest one
    /// offered, when there is one, otherwise the first offered after it subscribed. With
    /// `takingClears`, it is given the notices of ``clear(telling:)``.
    func subscribe(startingWithNewest: Bool = true, takingClears: Bool = false) -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            guard !state.isFinished else { return state.nextID }
            state.ids.append(state.nextID)
            state.seen.append(startingWithNewest && state.newest != nil ? state.version - 1 : state.version)
            state.waiters.append(nil)
            state.takesClears.append(takingClears)
            subscribed.add(1, ordering: .relaxed)
            return state.nextID
        }
    }

    /// Offers `value` to every consumer: a waiting one is woken with it, any other holds it in
    /// place of the value it had not taken yet.
    func offer(_ value: Element) -> Wake {
        state.withLock { state in
            guard !state.isFinished else { return Wake() }
            state.version += 1
            state.newest = value
            state.notice = nil
            var wake = Wake(feed: handOff)
            for index in state.waiters.indices where state.waiters[index] != nil { state.give(value, at: index, &wake) }
            return wake
        }
    }

    /// Forgets the newest value and every value not taken yet (it is no longer current); the
    /// consumers that take clears are given `notice` in its place, when there is one (a new
    /// consumer starts with nothing).
    func clear(telling notice: Element?) -> Wake {
        state.withLock { state in
            guard !state.isFinished else { return Wake() }
            state.version += 1
            state.newest = nil
            state.notice = notice
            var wake = Wake(feed: handOff)
            guard let notice else { return wake }
            for index in state.waiters.indices where state.waiters[index] != nil && state.takesClears[index] {
                state.give(notice, at: index, &wake)
            }
            return wake
        }
    }

    /// Ends every consumer: values not taken are dropped, waiting consumers get `nil`, and so
    /// does every later ``next(_:)`` and every later subscriber.
    func finish() -> Wake {
        state.withLock { state in
            guard !state.isFinished else { return Wake() }
            state.isFinished = true
            state.newest = nil
            let waiters = state.waiters.compactMap { $0 } + state.queued.map(\.waiter)
            subscribed.subtract(state.ids.count, ordering: .relaxed)
            state.ids = []
            state.seen = []
            state.waiters = []
            state.takesClears = []
            state.queued = []
            return Wake(resumptions: waiters.map { ($0, nil) }, feed: handOff)
        }
    }

    /// The next value of consumer `id`: at once when one is pending, otherwise once one is
    /// offered (calls that wait at once get the values in the order they were made); `nil` once
    /// the feed finished or the consumer was cancelled (also when its task is cancelled while
    /// it waits).
    func next(_ id: Int) async -> Element? {
        defer { ThreadSanitizerHooks.acquire?(UnsafeRawPointer(bitPattern: handOff)) }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                let answer: Element?? = state.withLock { state in
                    guard let index = state.index(of: id) else { return .some(nil) }
                    let pending = state.pending(at: index)
                    state.seen[index] = state.version
                    if let pending { return .some(pending) }
                    state.waits += 1
                    // Another call of this consumer waits already (a copy of its iterator): this
                    // one waits after it, never in its place (that one would never be resumed).
                    if state.waiters[index] == nil {
                        state.waiters[index] = waiter
                    } else {
                        state.queued.append((id, waiter))
                    }
                    return nil
                }
                if let answer { waiter.resume(returning: answer) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Whether a consumer holds a value it has not taken yet (for tests).
    var hasPending: Bool { state.withLock { state in state.ids.indices.contains { state.pending(at: $0) != nil } } }

    /// Whether consumer `id` waits for a value (for tests).
    func isWaiting(_ id: Int) -> Bool {
        state.withLock { state in state.index(of: id).map { state.waiters[$0] != nil } ?? false }
    }

    /// How many `next(_:)` calls, of every consumer, had to wait so far: one that counts is
    /// parked (for tests).
    var callsThatWaited: Int { state.withLock { $0.waits } }

    /// How many `next(_:)` calls, of every consumer, wait now (for tests).
    var waitingCalls: Int { state.withLock { $0.waiters.count { $0 != nil } + $0.queued.count } }

    /// Ends consumer `id`: its waiting calls, if any, end with `nil`, and it holds no value any more.
    func cancel(_ id: Int) {
        let waiters = state.withLock { state -> [Waiter] in
            guard let index = state.index(of: id) else { return [] }
            subscribed.subtract(1, ordering: .relaxed)
            return state.remove(at: index)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}
