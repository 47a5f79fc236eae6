import Synchronization

/// How long each node's provider took the last time it ran, by slot, shared by every build of
/// one graph (every instance of a scope builds the same part).
///
/// A build runs a node known to be quick in its own task rather than in a child task (see
/// `SchedulerTuning.inlineBudget`): a provider that returns in a microsecond costs less than the
/// child task's creation and the wake-up of the thread that runs it. A node that never ran, or
/// whose last run failed to report, counts as slow.
///
/// A hint, not a fact: builds of the same graph race to record their times, and the last word
/// wins (relaxed atomics; a stale or torn-between-builds reading only moves one node between
/// the build's task and a child task).
// Sendable: `nanoseconds` is written once per slot in `init`, then read and written only
// through its `Atomic`s (no lock: each slot is one relaxed atomic word); `deinit` runs alone.
final class NodeRunTimes: @unchecked Sendable {
    /// A node that never ran: slower than any budget.
    static let unknown = UInt32.max

    /// Each slot's last run time in nanoseconds (``unknown`` until it ran; saturating).
    private let nanoseconds: UnsafeMutablePointer<Atomic<UInt32>>
    private let count: Int

    init(count: Int) {
        self.count = count
        nanoseconds = .allocate(capacity: max(count, 1))
        for slot in 0..<count { (nanoseconds + slot).initialize(to: Atomic(Self.unknown)) }
    }

    deinit {
        nanoseconds.deinitialize(count: count)
        nanoseconds.deallocate()
    }

    /// The last run time of `slot`, in nanoseconds (``unknown``: none yet).
    func last(_ slot: Int) -> UInt32 { nanoseconds[slot].load(ordering: .relaxed) }

    /// The most slots ``total(of:isAtMost:)`` adds up: beyond, it answers `false`.
    static let mostSummed = 16

    /// Whether the last run times of `slots` add up to at most `limit` nanoseconds (none
    /// unknown). Only a few are summed: `false` for more than ``mostSummed`` slots.
    func total(of slots: some Collection<Int>, isAtMost limit: UInt32) -> Bool {
        guard slots.count <= Self.mostSummed else { return false }
        var total: UInt64 = 0
        for slot in slots { total += UInt64(last(slot)) }
        return total <= UInt64(limit)
    }

    /// Records one run of `slot`.
    func record(_ slot: Int, took duration: Duration) {
        nanoseconds[slot].store(Self.nanoseconds(duration), ordering: .relaxed)
    }

    /// `duration` in nanoseconds, saturating at ``unknown`` (about 4.3 s); negative: zero.
    static func nanoseconds(_ duration: Duration) -> UInt32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        guard seconds < 4 else { return unknown }
        return UInt32(seconds) * 1_000_000_000 + UInt32(attoseconds / 1_000_000_000)
    }

    /// The times of `old`'s nodes that `newGraph` keeps (by name), for `newGraph`'s builds: a
    /// reload does not make the unchanged services slow again.
    static func carrying(_ times: NodeRunTimes, from old: ServiceGraph, to newGraph: ServiceGraph) -> NodeRunTimes {
        let carried = NodeRunTimes(count: newGraph.nodes.count)
        let oldNames = old.serviceNames
        for (slot, name) in newGraph.serviceNames.enumerated() {
            // Most services keep their slot: only the others are looked up by name.
            let oldSlot = slot < oldNames.count && oldNames[slot] == name ? slot : old.layout.slots[name]
            if let oldSlot, oldSlot < times.count {
                carried.nanoseconds[slot].store(times.last(oldSlot), ordering: .relaxed)
            }
        }
        return carried
    }
}
