/// A list of slots for every slot of a graph (each node's dependencies, or its dependents), all
/// in one array.
///
/// A build reads a node's dependents at its end and a member's dependencies when it joins: kept
/// as an array per node, each read missed the cache on that node's own array; here every read
/// touches the one array the graph shares.
struct SlotLists: Sendable {
    /// `count + 1` offsets, then the lists one after the other: the list of `slot` is at
    /// `table[slot]..<table[slot + 1]`.
    let table: [Int32]

    /// The lists of `count` slots, `list(slot)` for each, holding `entries` entries in all.
    init(count: Int, entries: Int, _ list: (Int) -> [Int]) {
        var table = [Int32](repeating: 0, count: count + 1)
        table.reserveCapacity(count + 1 + entries)
        for slot in 0..<count {
            table[slot] = Int32(truncatingIfNeeded: table.count)
            for entry in list(slot) { table.append(Int32(truncatingIfNeeded: entry)) }
        }
        table[count] = Int32(truncatingIfNeeded: table.count)
        self.table = table
    }

    /// The lists that say, for each slot, which slots' lists in `lists` hold it (the dependents
    /// of each node, from the dependencies of each), each in increasing order.
    init(inverting lists: SlotLists) {
        let count = lists.count
        let offset = count + 1
        var table = [Int32](repeating: 0, count: lists.table.count)
        // How many lists hold each slot, then where its list starts.
        for position in offset..<lists.table.count { table[Int(lists.table[position])] += 1 }
        var start = Int32(truncatingIfNeeded: offset)
        for slot in 0...count {
            let size = table[slot]
            table[slot] = start
            start += size
        }
        // Each slot's list filled in the order of the lists that hold it.
        var next = Array(table[0..<count])
        for slot in 0..<count {
            for entry in lists[slot] {
                table[Int(next[entry])] = Int32(truncatingIfNeeded: slot)
                next[entry] += 1
            }
        }
        self.table = table
    }

    /// How many slots have a list.
    var count: Int { table.isEmpty ? 0 : Int(table[0]) - 1 }

    /// The list of `slot`.
    subscript(slot: Int) -> List { List(table: table, positions: Int(table[slot])..<Int(table[slot + 1])) }

    /// One slot's list: a view of the shared array.
    struct List: RandomAccessCollection, Sendable {
        let table: [Int32]
        let positions: Range<Int>

        var startIndex: Int { positions.lowerBound }
        var endIndex: Int { positions.upperBound }

        subscript(position: Int) -> Int { Int(table[position]) }
    }
}
