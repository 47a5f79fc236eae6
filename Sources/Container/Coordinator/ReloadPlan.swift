/// How a reload moves the app's values from the old graph's slots to the new graph's.
struct ReloadPlan: Sendable {
    /// By new slot of a built service: the old slot whose value carries over there, or -1 for a
    /// rebuilt one. `nil`: both graphs have the same services in the same slots, so every value
    /// that carries over keeps its slot (the usual reload, which then visits the rebuilt slots
    /// alone rather than every slot of a large graph).
    let fromOld: [Int]?
    /// The new graph's slots that are rebuilt, ascending.
    let rebuiltSlots: [Int]

    /// A plan that keeps every carried value in its slot and rebuilds `rebuiltSlots`.
    init(inPlace rebuiltSlots: [Int]) {
        fromOld = nil
        self.rebuiltSlots = rebuiltSlots
    }

    /// A plan that moves values by `fromOld` (new slot to old slot, -1: rebuilt).
    init(fromOld: [Int]) {
        self.fromOld = fromOld
        rebuiltSlots = fromOld.indices.filter { fromOld[$0] < 0 }
    }

    /// Plans the move from `old` to `graph`, whose difference is `changes`; `inPlace` when the
    /// graphs the changes were computed from are `old` and `graph` themselves (not parts of them).
    init(from old: ServiceGraph, to graph: ServiceGraph, changes: ServiceGraph.Changes, inPlace: Bool) {
        if inPlace && changes.inPlace && old.builtCount == graph.builtCount && old.nodes.count == graph.nodes.count {
            self.init(inPlace: changes.rebuiltSlots.filter { $0 < graph.builtCount })
            return
        }
        // By slot rather than by name: only the names of the rebuilt services are hashed (the
        // other nodes are compared in place, see `slot(of:near:)`).
        var isRebuilt = [Bool](repeating: false, count: graph.builtCount)
        for name in changes.rebuilt {
            if let slot = graph.layout.slots[name], slot < graph.builtCount { isRebuilt[slot] = true }
        }
        let names = graph.serviceNames
        let oldNames = old.serviceNames
        var fromOld = [Int](repeating: -1, count: graph.builtCount)
        for slot in 0..<graph.builtCount where !isRebuilt[slot] {
            if let oldSlot = old.slot(of: names[slot], near: slot, names: oldNames), oldSlot < old.builtCount {
                fromOld[slot] = oldSlot
            }
        }
        self.init(fromOld: fromOld)
    }
}
