import Synchronization

/// The values a build's nodes read their dependencies from, with no lock: those the generation
/// had when the build was launched, and each value the coordinator stores while it runs.
///
/// Each added slot is written once, by the coordinator, in the transition that stores the
/// value (under its lock). A node reads only its dependencies, and starts only after each has
/// a value, in a task created after that transition: the task's creation orders the write
/// before every read of it. Nodes then take no per-node array of their dependencies' values,
/// which would be allocated by the coordinator's thread and freed on the node's.
///
/// What a build costs follows what it adds, not the graph: the added values' storage is left
/// uninitialized, a bit per slot says which hold one (a word per 64 slots to clear), and only
/// the slots whose bit is set are released at the end.
// Sendable: `base` is immutable; each slot of `added` is written once, under the coordinator's
// lock, before any task that reads it is created (see above), and read only after its bit in
// `present` (atomic words) is seen set; `deinit` runs alone.
final class BuildValues: @unchecked Sendable {
    private let base: SlotValues
    private let added: UnsafeMutablePointer<AnyServiceBox>
    /// One bit per slot, set once the slot's value is in `added`.
    private let present: UnsafeMutablePointer<Atomic<UInt64>>
    private let words: Int

    /// The values of `base`, in a graph of `count` nodes.
    init(base: SlotValues, count: Int) {
        self.base = base
        added = .allocate(capacity: max(count, 1))
        words = (count + 63) >> 6
        present = .allocate(capacity: max(words, 1))
        for word in 0..<words { (present + word).initialize(to: Atomic(0)) }
    }

    deinit {
        for word in 0..<words {
            var bits = present[word].load(ordering: .relaxed)
            while bits != 0 {
                (added + ((word << 6) + bits.trailingZeroBitCount)).deinitialize(count: 1)
                bits &= bits - 1
            }
        }
        added.deallocate()
        present.deinitialize(count: words)
        present.deallocate()
    }

    /// The value of `slot`, if it had one at the launch or got one since.
    subscript(slot: Int) -> AnyServiceBox? {
        let bits = present[slot >> 6].load(ordering: .acquiring)
        return bits & (1 << UInt64(slot & 63)) != 0 ? added[slot] : base[slot]
    }

    /// Adds the value of `slot` (the coordinator, in the transition that stores it).
    func add(_ box: AnyServiceBox, at slot: Int) {
        let bit: UInt64 = 1 << UInt64(slot & 63)
        precondition(present[slot >> 6].load(ordering: .relaxed) & bit == 0, "a build's value is added once")
        (added + slot).initialize(to: box)
        present[slot >> 6].bitwiseOr(bit, ordering: .releasing)
    }
}
