/// The values a build's nodes read their dependencies from, with no lock: those the generation
/// had when the build was launched, and each value the coordinator stores while it runs.
///
/// Each added slot is written once, by the coordinator, in the transition that stores the
/// value (under its lock). A node reads only its dependencies, and starts only after each has
/// a value, in a task created after that transition: the task's creation orders the write
/// before every read of it. Nodes then take no per-node array of their dependencies' values,
/// which would be allocated by the coordinator's thread and freed on the node's.
// Sendable: `base` is immutable; each slot of `added` is written once, under the coordinator's
// lock, before any task that reads it is created (see above), and read only after; a chunk is
// allocated in the same transition as the first value it holds.
final class BuildValues: @unchecked Sendable {
    /// Slots per chunk of `added`: a small closure of a large graph allocates, clears and frees
    /// only the chunks its values fall in, not an array the size of the graph.
    private static let chunkShift = 6
    private static let chunkSize = 1 << chunkShift

    private let base: SlotValues
    private let added: UnsafeMutablePointer<UnsafeMutablePointer<AnyServiceBox?>?>
    private let chunkCount: Int

    /// The values of `base`, in a graph of `count` nodes.
    init(base: SlotValues, count: Int) {
        self.base = base
        chunkCount = max((count + Self.chunkSize - 1) >> Self.chunkShift, 1)
        added = .allocate(capacity: chunkCount)
        added.initialize(repeating: nil, count: chunkCount)
    }

    deinit {
        for index in 0..<chunkCount {
            guard let chunk = added[index] else { continue }
            chunk.deinitialize(count: Self.chunkSize)
            chunk.deallocate()
        }
        added.deallocate()
    }

    /// The value of `slot`, if it had one at the launch or got one since.
    subscript(slot: Int) -> AnyServiceBox? {
        if let chunk = added[slot >> Self.chunkShift], let box = chunk[slot & (Self.chunkSize - 1)] { return box }
        return base[slot]
    }

    /// Adds the value of `slot` (the coordinator, in the transition that stores it).
    func add(_ box: AnyServiceBox, at slot: Int) {
        let chunk: UnsafeMutablePointer<AnyServiceBox?>
        if let existing = added[slot >> Self.chunkShift] {
            chunk = existing
        } else {
            chunk = .allocate(capacity: Self.chunkSize)
            chunk.initialize(repeating: nil, count: Self.chunkSize)
            added[slot >> Self.chunkShift] = chunk
        }
        precondition(chunk[slot & (Self.chunkSize - 1)] == nil, "a build's value is added once")
        chunk[slot & (Self.chunkSize - 1)] = box
    }
}
