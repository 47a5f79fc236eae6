public import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The published snapshot of a container: read without a lock on the hot path
/// (`ServiceContainer.current`, the ready path of `start()`), replaced rarely (publish, reset).
///
/// ## Why not a `Locked<AppServices?>`
///
/// Every read of a mutex is two read-modify-writes on *one* shared cache line, so concurrent
/// readers on different cores contend on it (and may fall into the futex). Here a read touches
/// only a per-thread counter line, which no other reader writes, plus the snapshot's own
/// reference count, which any API returning a strong reference must touch.
///
/// ## The protocol (reader-counted deferred release)
///
/// - `slot` owns one strong reference (+1) to the published snapshot, as an `Unmanaged` pointer.
/// - `readers` are `shardCount` counters, one per 128-byte line. A thread uses the shard
///   chosen by hashing its thread id (any choice is correct; distinct shards only avoid contention).
/// - **Read**: `readers[s] += 1` (seq_cst) → `p = slot.load()` (seq_cst) → `retain(p)` →
///   `readers[s] -= 1` (release; same shard `s` even if the thread was preempted in between).
/// - **Write** (serialized by `writer`): `old = slot.exchange(new)` (seq_cst) → for every shard,
///   wait until it is observed at 0 (seq_cst load) → `release(old)`.
///
/// ## Why a reader never retains a freed snapshot
///
/// Take a reader R whose load returned `old`, and the write W whose exchange X removed `old`
/// from the slot (snapshots are fresh objects, so `old` is never stored again). All of R's
/// increment I, its load L and X are seq_cst, so they lie in one total order S. L read `old`,
/// so L precedes X in S, hence I precedes X, which precedes W's scan load C of R's shard.
/// Because I precedes C in S, C reads a value at or after I in that counter's modification
/// order. Every decrement comes after its own increment in that order, so the count is 0 at
/// a point after I only if R's decrement D is already before it: C reading 0 means C reads
/// from D or a later read-modify-write in D's release sequence, so D synchronizes with C.
/// R's retain is sequenced before D, so it happens before W's `release(old)`: `old` still
/// had W's +1 when R retained it. If C reads a non-zero count, W waits and reads again.
///
/// A reader whose increment comes after C in S loads after X, so it sees the new snapshot
/// (or a later one), never `old`; the same argument then applies to whichever write
/// removes what it loaded. Readers never wait; a write waits only for the readers that
/// are inside their few-instruction section (longer only if such a reader's thread was
/// preempted there; the writer yields the processor while it waits).
@usableFromInline
// Sendable: `slot` and the shard counters are atomics, the counters' memory is allocated in
// `init`, never reassigned and freed only in `deinit`; writes are serialized by the `writer`
// lock; the reader-counting protocol above makes concurrent reads and writes safe.
final class SnapshotSlot: @unchecked Sendable {

    /// Counters per slot: a power of two, so a hash picks one with a mask.
    @usableFromInline static let shardCount = 32
    /// `Atomic<Int>`s per shard: one counter and padding to 128 bytes (two cache lines,
    /// so that the adjacent-line prefetcher does not pair two shards either).
    @usableFromInline static let shardStride = 16

    @usableFromInline let slot = Atomic<Unmanaged<AppServices>?>(nil)
    @usableFromInline let readers: UnsafeMutablePointer<Atomic<Int>>
    private let writer = Locked<Void>(())

    init() {
        let count = Self.shardCount * Self.shardStride
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<Atomic<Int>>.stride, alignment: 128)
        readers = raw.bindMemory(to: Atomic<Int>.self, capacity: count)
        for index in 0..<count { (readers + index).initialize(to: Atomic(0)) }
    }

    deinit {
        // No reader can be running: each holds a strong reference to the owner of this slot.
        slot.load(ordering: .sequentiallyConsistent)?.release()
        let count = Self.shardCount * Self.shardStride
        readers.deinitialize(count: count)
        readers.deallocate()
    }

    /// The published snapshot, retained for the caller; `nil` when none is published.
    @inlinable
    func load() -> AppServices? {
        let counter = readers + Self.shardIndex() * Self.shardStride
        counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        guard let pointer = slot.load(ordering: .sequentiallyConsistent) else {
            counter.pointee.wrappingSubtract(1, ordering: .releasing)
            return nil
        }
        // The retain must happen inside the counted section: it is an explicit `retain()`
        // (an opaque runtime call that the optimizer does not move past the atomic below).
        let retained = pointer.retain()
        counter.pointee.wrappingSubtract(1, ordering: .releasing)
        return retained.takeRetainedValue()
    }

    /// Enters a reader section (see the protocol above) and returns the counter to leave by.
    ///
    /// Between ``enterReader()`` and ``leaveReader(_:)`` the snapshot ``pointerInsideReader``
    /// returned cannot be released, so it may be used without retaining it. The section must be
    /// short, must not block and must never take a lock: ``store(_:)`` waits for readers while
    /// its caller holds the coordinator's state lock, so a reader waiting for that lock would
    /// deadlock both.
    @inlinable @inline(__always)
    func enterReader() -> ReaderTicket {
        let counter = readers + Self.shardIndex() * Self.shardStride
        counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        return ReaderTicket(counter: counter)
    }

    /// The published snapshot, unretained; only valid inside a reader section.
    @inlinable @inline(__always)
    var pointerInsideReader: Unmanaged<AppServices>? { slot.load(ordering: .sequentiallyConsistent) }

    /// Leaves the reader section entered with `counter`.
    @inlinable @inline(__always)
    func leaveReader(_ ticket: ReaderTicket) {
        ticket.counter.pointee.wrappingSubtract(1, ordering: .releasing)
    }

    /// Publishes `snapshot` (or clears the slot) and releases the previous snapshot once no
    /// reader can still be retaining it.
    func store(_ snapshot: AppServices?) {
        writer.withLock { _ in
            let new = snapshot.map { Unmanaged.passRetained($0) }
            guard let old = slot.exchange(new, ordering: .sequentiallyConsistent) else { return }
            waitForReaders()
            old.release()
        }
    }

    /// Returns once every shard was observed at zero after the exchange.
    private func waitForReaders() {
        for shard in 0..<Self.shardCount {
            let counter = readers + shard * Self.shardStride
            var spins = 0
            while counter.pointee.load(ordering: .sequentiallyConsistent) != 0 {
                spins += 1
                // A reader's section is a few instructions; a long wait means its thread was
                // preempted inside it, so give the processor away instead of spinning on.
                if spins > 64 { _ = sched_yield() }
            }
        }
    }

    /// A per-thread hash: distinct threads usually get distinct shards. Correctness does not
    /// depend on it, only contention does.
    @usableFromInline @inline(__always)
    static func shardIndex() -> Int {
        let thread = UInt64(UInt(bitPattern: threadIdentity()))
        // Fibonacci hashing of the thread's control-block address, keeping the top bits.
        let hash = (thread >> 12) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hash >> 59) & (shardCount - 1)
    }

    @usableFromInline @inline(__always)
    static func threadIdentity() -> Int {
        #if canImport(Glibc) || canImport(Musl)
            Int(bitPattern: UInt(pthread_self()))
        #elseif canImport(Darwin)
            Int(bitPattern: pthread_self())
        #else
            0
        #endif
    }
}

/// The counter a reader section was entered with, to leave by (see ``SnapshotSlot/enterReader()``).
@usableFromInline
struct ReaderTicket {
    @usableFromInline let counter: UnsafeMutablePointer<Atomic<Int>>

    @inlinable init(counter: UnsafeMutablePointer<Atomic<Int>>) { self.counter = counter }
}
