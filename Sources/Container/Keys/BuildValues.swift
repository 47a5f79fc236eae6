/// The values a build's nodes read their dependencies from, with no lock: those the generation
/// had when the build was launched, and each value the coordinator stores while it runs.
///
/// Each added slot is written once, by the coordinator, in the transition that stores the
/// value (under its lock). A node reads only its dependencies, and starts only after each has
/// a value, in a task created after that transition: the task's creation orders the write
/// before every read of it. Nodes then take no per-node array of their dependencies' values,
/// which would be allocated by the coordinator's thread and freed on the node's.
// Sendable: `base` is immutable; each slot of `added` is written once, under the coordinator's
// lock, before any task that reads it is created (see above), and read only after.
final class BuildValues: @unchecked Sendable {
    private let base: SlotValues
    private let added: UnsafeMutablePointer<AnyServiceBox?>
    private let count: Int

    /// The values of `base`, in a graph of `count` nodes.
    init(base: SlotValues, count: Int) {
        self.base = base
        self.count = count
        added = .allocate(capacity: max(count, 1))
        added.initialize(repeating: nil, count: count)
    }

    deinit {
        // Only the slots the build filled hold a reference (a small closure of a large graph
        // fills few): checking each costs less than the generic deinitialization of all.
        for slot in 0..<count where added[slot] != nil { (added + slot).deinitialize(count: 1) }
        added.deallocate()
    }

    /// The value of `slot`, if it had one at the launch or got one since.
    subscript(slot: Int) -> AnyServiceBox? { added[slot] ?? base[slot] }

    /// Adds the value of `slot` (the coordinator, in the transition that stores it).
    func add(_ box: AnyServiceBox, at slot: Int) {
        precondition(added[slot] == nil, "a build's value is added once")
        added[slot] = box
    }
}
