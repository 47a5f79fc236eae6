import Dispatch
public import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The published snapshot of a container and its generation: read without a lock on the hot
/// path (`ServiceContainer.current`, `resolve(_:)`, the ready path of `start()`), replaced
/// rarely (publish, reset).
///
/// ## Why not a `Locked<AppServices?>`
///
/// Every read of a mutex is two read-modify-writes on *one* shared cache line, so concurrent
/// readers on different cores contend on it (and may fall into the futex). Here a read touches
/// only a per-thread counter line, which no other reader writes, plus the snapshot's own
/// reference count when the caller keeps the snapshot.
///
/// ## The protocol (reader-counted deferred release, two epochs)
///
/// - `slot` owns one strong reference (+1) to the published snapshot, as an `Unmanaged` pointer.
/// - `readers` are ``shardCount`` shards, one per 128-byte line (a single shard: its two counters
///   alone), each holding two counters, one per epoch parity. A thread uses the shard chosen by hashing its thread id (any choice is
///   correct; distinct shards only avoid contention). `epoch` is 0 or 1.
/// - **Read**: `e = epoch` → `readers[s][e] += 1` → if `epoch != e`, undo and start again →
///   `p = slot.load()` → use `p` (or retain it) → `readers[s][e] -= 1` (release). All the
///   other operations are sequentially consistent.
/// - **Replace** (``exchange(_:)``, under the coordinator's state lock): `old = slot.exchange(new)`.
/// - **Retire** (``retire(_:)``, after that lock is released; retirements are serialized, see
///   the bound below): `e = epoch` → `epoch = 1 - e` → wait until every shard's counter `e` is
///   observed at 0 → `release(old)`.
///
/// ## Why a reader never uses a released snapshot
///
/// Take a reader R whose load L returned `old`, its increment I of counter `e_R` and its
/// validating epoch load V (I < V < L in the single total order S of seq_cst operations), and
/// the exchange X that removed `old` (snapshots are fresh objects, never stored twice), so
/// L < X. The retirement W of `old` flips the epoch at F > X, then scans at C > F.
/// - If V read the parity that F flips away from (`e_R == e`), V < F, so I < C: C reads the
///   counter at or after I in its modification order and reads 0 only once R's decrement D is
///   before it, so D synchronizes with C and everything R did with `old` happens before
///   `release(old)`.
/// - Otherwise another flip F' (from `e_R`) lies between V and F; its retirement W' finished
///   its scan C' > F' > V > I before W could flip (retirements are serialized, waits
///   included): W' already waited for R to leave.
/// A reader whose V follows F loads after X, so it never sees `old`.
///
/// ## The bound
///
/// Readers never wait. ``exchange(_:)`` never waits either, so the state lock is never held
/// while readers are counted. ``retire(_:)`` waits only for the readers that were inside their
/// few-instruction section when it flipped the epoch (readers arriving later count in the other
/// epoch), and at most 1,024 loads per shard: a reader still inside after that had its thread
/// preempted there, and the rest of the wait moves to a serial reclaimer queue (with every
/// retirement after it, until it caught up). So a transition never blocks for more than
/// about a microsecond per shard, and an old snapshot is released at the latest when the last
/// reader that held it runs again (about one scheduling quantum).
@usableFromInline
// Sendable: `slot`, `epoch`, `generationValue` and the shard counters are atomics; the
// counters' memory is allocated in `init`, never reassigned and freed only in `deinit`;
// retirements are serialized by the `writer` lock, which also holds the backlogs; the protocol
// above makes concurrent reads,
// exchanges and retirements safe.
final class SnapshotSlot: @unchecked Sendable {

    /// Shards of the app's slot: a power of two, so a hash picks one with a mask. Scope
    /// instances, many and short-lived, use one shard (a few readers each), whose two counters
    /// take 16 bytes: with no other shard to keep apart, it needs no padding.
    static let appShards = 32
    /// `Atomic<Int>`s per shard: the two epochs' counters and padding to 128 bytes (two cache
    /// lines, so that the adjacent-line prefetcher does not pair two shards either).
    @usableFromInline static let shardStride = 16

    @usableFromInline let slot = Atomic<Unmanaged<AppServices>?>(nil)
    @usableFromInline let epoch = Atomic<Int>(0)
    @usableFromInline let readers: UnsafeMutablePointer<Atomic<Int>>
    /// The coordinator's current generation, negated once it shut down (see ``isShutDown``);
    /// written under its state lock, read by anyone.
    @usableFromInline let generationValue = Atomic<Int>(1)
    /// ThreadSanitizer's annotations (`nil` without it): a publication releases the slot, a read
    /// that finds a snapshot acquires it. Atomics of a generic type may run inside the
    /// uninstrumented standard library, where ThreadSanitizer cannot see them order a snapshot's
    /// initialization before a reader's use of it; without ThreadSanitizer, a predictable branch.
    @usableFromInline let tsanAcquire = ThreadSanitizerHooks.acquire
    private let tsanRelease = ThreadSanitizerHooks.release
    /// Whether a ready snapshot may be returned to `start()` without visiting the state machine
    /// (false when callers are traced: their `caller.joined` is stamped by the machine).
    @usableFromInline let answersReadyInline: Bool
    /// Serializes retirements (the epoch flips) of every slot, and holds, by slot, how many of
    /// its retirements wait on the reclaimer (slots without a backlog have no entry).
    /// Retirements are rare (a publish, a reset, a close), and one lock per slot was 64 bytes
    /// per scope instance. A slot with a backlog is kept alive by the reclaimer's closures, so
    /// its identifier is never reused while it has an entry.
    private static let writer = Locked<[ObjectIdentifier: Int]>([:])

    /// Shards of this slot (a power of two).
    let shardCount: Int
    /// `shardCount - 1`: a thread's hash masked with it picks its shard.
    @usableFromInline let shardMask: Int

    init(answersReadyInline: Bool, shards: Int = SnapshotSlot.appShards) {
        precondition(shards > 0 && shards & (shards - 1) == 0, "a power of two")
        self.answersReadyInline = answersReadyInline
        self.shardCount = shards
        self.shardMask = shards - 1
        let count = Self.counterCount(shards: shards)
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<Atomic<Int>>.stride,
            alignment: shards == 1 ? MemoryLayout<Atomic<Int>>.alignment : 128)
        readers = raw.bindMemory(to: Atomic<Int>.self, capacity: count)
        for index in 0..<count { (readers + index).initialize(to: Atomic(0)) }
    }

    /// The counters allocated for `shards` shards: a padded stride per shard, or just the two
    /// counters of a single shard (its index is always 0, so the stride never applies).
    private static func counterCount(shards: Int) -> Int { shards == 1 ? 2 : shards * shardStride }

    deinit {
        // No reader can be running: each holds a strong reference to the owner of this slot,
        // and every exchanged-out snapshot was retired by the transition that exchanged it.
        slot.load(ordering: .sequentiallyConsistent)?.release()
        readers.deinitialize(count: Self.counterCount(shards: shardCount))
        readers.deallocate()
    }

    /// The current generation (see ``generationValue``); readable without any lock.
    @inlinable var generation: Int { abs(generationValue.load(ordering: .relaxed)) }

    /// The published snapshot, retained for the caller; `nil` when none is published.
    @inlinable
    func load() -> AppServices? {
        let ticket = enterReader()
        guard let pointer = slot.load(ordering: .sequentiallyConsistent) else {
            leaveReader(ticket)
            return nil
        }
        if let tsanAcquire { tsanAcquire(UnsafeRawPointer(readers)) }
        // The retain must happen inside the counted section: it is an explicit `retain()`
        // (an opaque runtime call that the optimizer does not move past the atomic below).
        let retained = pointer.retain()
        leaveReader(ticket)
        return retained.takeRetainedValue()
    }

    /// Runs `body` with the published snapshot, without retaining it; `nil` when none is published.
    ///
    /// `body` runs inside a reader section: it must be short, must not block, must not take a
    /// lock and must not keep the snapshot (return what it reads instead). A retirement waits
    /// for the readers inside their section.
    @inlinable @inline(__always)
    func withCurrent<Result, Failure: Error>(
        _ body: (AppServices) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        let ticket = enterReader()
        defer { leaveReader(ticket) }
        guard let pointer = slot.load(ordering: .sequentiallyConsistent) else { return nil }
        if let tsanAcquire { tsanAcquire(UnsafeRawPointer(readers)) }
        // (`_withUnsafeGuaranteedRef` rethrows untyped errors: carry the typed one out in a `Result`.)
        let outcome = pointer._withUnsafeGuaranteedRef { snapshot in
            Swift.Result { () throws(Failure) -> Result in try body(snapshot) }
        }
        return try outcome.get()
    }

    /// Enters a reader section (see the protocol above) and returns the counter to leave by.
    @inlinable @inline(__always)
    func enterReader() -> ReaderTicket {
        let shard = readers + (Self.threadHash() & shardMask) * Self.shardStride
        while true {
            let parity = epoch.load(ordering: .sequentiallyConsistent)
            let counter = shard + parity
            counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            if epoch.load(ordering: .sequentiallyConsistent) == parity { return ReaderTicket(counter: counter) }
            // A retirement flipped the epoch in between: count in the new one instead.
            counter.pointee.wrappingSubtract(1, ordering: .releasing)
        }
    }

    /// Leaves the reader section entered with `ticket`.
    @inlinable @inline(__always)
    func leaveReader(_ ticket: ReaderTicket) {
        ticket.counter.pointee.wrappingSubtract(1, ordering: .releasing)
    }

    /// Publishes `snapshot` (or clears the slot) and returns the snapshot it replaced, which the
    /// caller must pass to ``retire(_:)`` after releasing its own locks. Never waits.
    func exchange(_ snapshot: AppServices?) -> RetiredSnapshot? {
        let new = snapshot.map { Unmanaged.passRetained($0) }
        if let tsanRelease { tsanRelease(UnsafeRawPointer(readers)) }
        return slot.exchange(new, ordering: .sequentiallyConsistent).map(RetiredSnapshot.init)
    }

    /// Releases a snapshot ``exchange(_:)`` replaced, once no reader can still be using it.
    /// Call it without holding any lock a reader might wait for.
    ///
    /// Never blocks for long: when a reader is still inside its section after a short spin (its
    /// thread was preempted there), the rest of the wait and the release move to the serial
    /// ``reclaimer`` queue, and so do the retirements that follow until it caught up (each flip
    /// must wait for the previous one's readers, see above).
    func retire(_ retired: RetiredSnapshot) {
        let id = ObjectIdentifier(self)
        let released = Self.writer.withLock { backlogs -> Bool in
            guard backlogs[id] == nil else {
                backlogs[id, default: 0] += 1
                Self.reclaimer.async { [self] in finish(retired) }
                return false
            }
            let parity = flip()
            if waitForReaders(parity: parity, spins: 1_024) { return true }
            backlogs[id] = 1
            Self.reclaimer.async { [self] in
                _ = waitForReaders(parity: parity, spins: nil)
                release(retired)
            }
            return false
        }
        if released { retired.pointer.release() }
    }

    /// The serial queue that finishes retirements held up by a preempted reader. Utility QoS:
    /// nobody waits for it (a retirement only frees memory late), so it never competes with the
    /// app's work, and it sleeps rather than spins while it waits (see ``waitForReaders``).
    private static let reclaimer = DispatchQueue(label: "ServiceContainer.SnapshotSlot.reclaimer", qos: .utility)

    /// Flips the epoch and returns the parity readers must leave.
    private func flip() -> Int {
        let parity = epoch.load(ordering: .sequentiallyConsistent)
        epoch.store(1 - parity, ordering: .sequentiallyConsistent)
        return parity
    }

    /// On the reclaimer: a retirement queued behind a backlog.
    private func finish(_ retired: RetiredSnapshot) {
        let parity = Self.writer.withLock { _ in flip() }
        _ = waitForReaders(parity: parity, spins: nil)
        release(retired)
    }

    /// On the reclaimer: releases and shrinks the backlog.
    private func release(_ retired: RetiredSnapshot) {
        retired.pointer.release()
        let id = ObjectIdentifier(self)
        Self.writer.withLock { backlogs in
            let left = (backlogs[id] ?? 1) - 1
            backlogs[id] = left > 0 ? left : nil
        }
    }

    /// Waits until the reclaimer finished every retirement handed to it; for tests. Suspends
    /// rather than blocks: a retirement may wait for a reader another test holds in its section
    /// on purpose, and a blocked pool thread could be the one that test needs to let it go.
    func _drainRetirements() async {
        await withCheckedContinuation { continuation in Self.reclaimer.async { continuation.resume() } }
    }

    /// Whether the coordinator refuses every call (shut down, shutting down, or a closed scope
    /// instance): the hot path's error then says so instead of "not ready". Kept in the sign of
    /// ``generationValue`` (generations start at 1), so it costs a slot no memory.
    @inlinable var isShutDown: Bool { generationValue.load(ordering: .relaxed) < 0 }

    /// Sets the generation the hot path reports, and whether the coordinator shut down (for
    /// good: a shut-down slot stays so); called under the coordinator's state lock.
    func setGeneration(_ generation: Int, isShutDown: Bool) {
        generationValue.store(isShutDown || self.isShutDown ? -generation : generation, ordering: .relaxed)
    }

    /// Whether every shard's counter of `parity` was observed at zero after the flip, within
    /// `spins` loads per shard (`nil`: however long it takes).
    private func waitForReaders(parity: Int, spins limit: Int?) -> Bool {
        for shard in 0..<shardCount {
            let counter = readers + shard * Self.shardStride + parity
            var spins = 0
            var pause = 1_000  // nanoseconds
            while counter.pointee.load(ordering: .sequentiallyConsistent) != 0 {
                spins += 1
                if let limit, spins > limit { return false }
                // A reader's section is a few instructions; a long wait means its thread was
                // preempted inside it. A bounded wait (the caller of `retire`) never gives the
                // processor away (with more busy threads than cores that could cost it a
                // scheduling slice): it hands the wait to the reclaimer. The reclaimer sleeps,
                // doubling the pause up to a millisecond: a spin or a yield would keep a core
                // from the preempted reader it waits for (on Darwin, a yield donates no
                // priority, so a reader of a lower QoS could starve), a sleep leaves it free.
                if limit == nil && spins > 64 {
                    Self.sleep(nanoseconds: pause)
                    pause = min(pause * 2, 1_000_000)
                }
            }
        }
        return true
    }

    /// Blocks the calling thread for about `nanoseconds` (below a second).
    private static func sleep(nanoseconds: Int) {
        var request = timespec(tv_sec: 0, tv_nsec: nanoseconds)
        _ = nanosleep(&request, nil)
    }

    /// A per-thread hash: distinct threads usually get distinct shards. Correctness does not
    /// depend on it, only contention does.
    @usableFromInline @inline(__always)
    static func threadHash() -> Int {
        let thread = UInt64(UInt(bitPattern: threadIdentity()))
        // Fibonacci hashing of the thread's control-block address, keeping the top bits.
        let hash = (thread >> 12) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hash >> 59)
    }

    @usableFromInline @inline(__always)
    static func threadIdentity() -> Int {
        #if canImport(Glibc)
            Int(bitPattern: UInt(pthread_self()))  // pthread_t is an integer in glibc
        #elseif canImport(Musl) || canImport(Darwin)  // a pointer in musl and Darwin
            Int(bitPattern: pthread_self())
        #else
            0
        #endif
    }
}

/// A snapshot taken out of a ``SnapshotSlot`` and not yet released (see ``SnapshotSlot/retire(_:)``).
struct RetiredSnapshot: @unchecked Sendable {
    // Sendable: the pointer is a +1 reference owned by this value and handed to exactly one
    // `retire` call; `AppServices` itself is Sendable.
    let pointer: Unmanaged<AppServices>
}

/// The counter a reader section was entered with, to leave by (see ``SnapshotSlot/enterReader()``).
@usableFromInline
struct ReaderTicket {
    @usableFromInline let counter: UnsafeMutablePointer<Atomic<Int>>

    @inlinable init(counter: UnsafeMutablePointer<Atomic<Int>>) { self.counter = counter }
}
