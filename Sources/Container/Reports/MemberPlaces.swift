/// Where each member of a build keeps its record, by slot: its record's position + 1 (0 for a
/// slot that is not a member).
///
/// An array by slot when the build holds a good part of the graph; a small hash table when it
/// holds a few nodes of a large graph (a request for one closure), so that such a build costs
/// what its closure does rather than what the graph does. It turns into the array as it grows.
/// Both live in one array that also holds the counts: one word, as the array by slot alone took
/// (every snapshot's report of a scope instance keeps one).
struct MemberPlaces: Sendable {
    /// ``header`` words, then, dense: the place of each slot; sparse: buckets of two, a slot (-1:
    /// empty) and its place, a power of two of them, at most half full, probed linearly.
    private var storage: [Int32]

    /// The words before the places: the graph's node count, and how many members the table
    /// holds (-1 when dense).
    private static var header: Int { 2 }

    /// No members, for a graph of `count` nodes, with room for `capacity` members.
    init(count: Int, capacity: Int) {
        storage =
            Self.isDense(members: capacity, count: count)
            ? Self.array(count: count) : Self.table(buckets: Self.bucketCount(for: capacity), count: count)
    }

    /// Whether `members` of `count` nodes are kept by slot: a lookup in the table costs a few
    /// times an array read, and the array costs its making (zeroed) and its room in the cache.
    private static func isDense(members: Int, count: Int) -> Bool { members * 16 >= count }

    /// The buckets that hold `members` at most half full (8 at least).
    private static func bucketCount(for members: Int) -> Int {
        var buckets = 8
        while buckets < members * 2 { buckets <<= 1 }
        return buckets
    }

    /// The storage of no members kept by slot, for `count` nodes.
    private static func array(count: Int) -> [Int32] {
        var storage = [Int32](repeating: 0, count: header + count)
        storage[0] = Int32(truncatingIfNeeded: count)
        storage[1] = -1
        return storage
    }

    /// The storage of an empty table of `buckets` buckets, for `count` nodes.
    private static func table(buckets: Int, count: Int) -> [Int32] {
        // The smallest table is copied from a shared one: making an array of a given length
        // looks its type up at run time, a copy does not.
        var storage = buckets == 8 ? smallest : [Int32](repeating: -1, count: header + 2 * buckets)
        storage[0] = Int32(truncatingIfNeeded: count)
        storage[1] = 0
        return storage
    }

    /// An empty table of the fewest buckets.
    private static let smallest = [Int32](repeating: -1, count: header + 16)

    /// How many members the table holds; -1 when dense.
    private var used: Int32 { storage[1] }

    /// The index in ``storage`` of the bucket holding `slot`, or of the empty one where it would go.
    private func bucket(of slot: Int) -> Int {
        let buckets = (storage.count - Self.header) >> 1
        let mask = buckets - 1
        // Fibonacci hashing: slots close together (a closure's often are) spread over the table.
        let hash = UInt64(truncatingIfNeeded: slot) &* 0x9E37_79B9_7F4A_7C15
        var index = Int(truncatingIfNeeded: hash >> UInt64(64 - buckets.trailingZeroBitCount))
        while storage[Self.header + 2 * index] >= 0 && Int(storage[Self.header + 2 * index]) != slot {
            index = (index + 1) & mask
        }
        return Self.header + 2 * index
    }

    /// The place of `slot`: its record's position + 1, or 0 when it is not a member. Inlined: a
    /// node's end reads one per dependent.
    @inline(__always)
    subscript(slot: Int) -> Int {
        if used < 0 { return Int(storage[Self.header + slot]) }
        let bucket = bucket(of: slot)
        return storage[bucket] < 0 ? 0 : Int(storage[bucket + 1])
    }

    /// Makes `slot`, not a member yet, a member whose record is at `position` - 1.
    mutating func insert(_ position: Int, at slot: Int) {
        let place = Int32(truncatingIfNeeded: position)
        if used >= 0 && Int(used + 1) * 4 > storage.count - Self.header { grow(toHold: Int(used) + 1) }
        if used < 0 {
            storage[Self.header + slot] = place
        } else {
            let bucket = bucket(of: slot)
            storage[bucket] = Int32(truncatingIfNeeded: slot)
            storage[bucket + 1] = place
            storage[1] += 1
        }
    }

    /// Room for `members`: a table twice as long, or the array once they are a good part of the graph.
    private mutating func grow(toHold members: Int) {
        let old = storage
        let count = Int(old[0])
        let dense = Self.isDense(members: members, count: count)
        storage = dense ? Self.array(count: count) : Self.table(buckets: Self.bucketCount(for: members), count: count)
        for bucket in stride(from: Self.header, to: old.count, by: 2) where old[bucket] >= 0 {
            if dense {
                storage[Self.header + Int(old[bucket])] = old[bucket + 1]
            } else {
                let new = self.bucket(of: Int(old[bucket]))
                storage[new] = old[bucket]
                storage[new + 1] = old[bucket + 1]
                storage[1] += 1
            }
        }
    }
}
