/// A graph's closures and orders: what a request needs, what an invalidation reaches, in what
/// order a build may start them.
extension ServiceGraph {
    /// The slots of `names` and of everything that depends on them, transitively.
    func closure(ofDependentsOf slots: some Sequence<Int>) -> Set<Int> {
        var result = Set<Int>()
        var stack = Array(slots)
        while let slot = stack.popLast() {
            guard result.insert(slot).inserted else { continue }
            stack.append(contentsOf: dependents[slot])
        }
        return result
    }

    /// The slots of `closure` in topological order: the graph's order when it holds every slot,
    /// otherwise its slots sorted by rank (what a small closure costs, whatever the graph's size).
    func topologicallyOrdered(_ closure: SlotSet) -> [Int] {
        if closure.count == nodes.count { return topologicalOrder }
        var slots = closure.slots
        sortTopologically(&slots)
        return slots
    }

    /// Sorts `slots` (each once) in topological order, in place.
    func sortTopologically(_ slots: inout [Int]) {
        guard slots.count > 1 else { return }
        // Sorted as integers (rank, then slot, in one word): no comparison closure per step.
        let rank = topologicalRank
        for index in slots.indices { slots[index] |= rank[slots[index]] << 32 }
        slots.sort()
        for index in slots.indices { slots[index] &= 0xFFFF_FFFF }
    }

    /// The slots `roots` need: the roots and everything they depend on, transitively.
    func closure(of roots: [Int]) -> SlotSet { Self.closure(of: roots, following: dependencies) }

    static func closure(of roots: [Int], following dependencies: SlotLists) -> SlotSet {
        var closure = SlotSet(capacity: dependencies.count)
        var stack = roots
        while let slot = stack.popLast() {
            guard closure.insert(slot) else { continue }
            stack.append(contentsOf: dependencies[slot])
        }
        return closure
    }

    /// The part of the closure of `roots` whose failure fails the request: the nodes reached
    /// without passing an optional one (an optional root included).
    func required(from roots: [Int]) -> SlotSet {
        hasOptionalServices ? Self.required(from: roots, in: nodes, following: dependencies) : closure(of: roots)
    }

    static func required(from roots: [Int], in nodes: [Node], following dependencies: SlotLists) -> SlotSet {
        var required = SlotSet(capacity: nodes.count)
        var stack = roots
        while let slot = stack.popLast() {
            guard !nodes[slot].isOptional, required.insert(slot) else { continue }
            stack.append(contentsOf: dependencies[slot])
        }
        return required
    }

    /// An asynchronous service `slot`'s closure holds (itself first), or `nil` when it can be
    /// built on the caller's thread by ``ServiceContainer/resolveNow(_:as:isolation:)``.
    func asynchronousNode(inClosureOf slot: Int) -> Int? {
        guard !firstAsync.isEmpty else { return slot }
        let found = firstAsync[slot]
        return found < 0 ? nil : Int(found)
    }

    /// Kahn's algorithm; returns fewer nodes than the graph has when there is a cycle.
    static func topologicalOrder(of nodes: [Node], dependents: SlotLists) -> [Int] {
        var pending = [Int]()
        pending.reserveCapacity(nodes.count)
        for node in nodes { pending.append(node.dependencies.count) }
        var order = (0..<nodes.count).filter { pending[$0] == 0 }
        order.reserveCapacity(nodes.count)
        var next = 0
        while next < order.count {
            for dependent in dependents[order[next]] {
                pending[dependent] -= 1
                if pending[dependent] == 0 { order.append(dependent) }
            }
            next += 1
        }
        return order
    }
}
