/// What a new version of a graph changes (DESIGN §11): the services it adds, removes and
/// changes, and those it must rebuild (the changed and added ones and everything depending on
/// them); every other service's value carries over.
public struct GraphChanges: Sendable, Hashable {
    /// Services the new graph declares and the old one did not.
    public let added: [String]
    /// Services the old graph declared and the new one does not.
    public let removed: [String]
    /// Services in both whose provider, options, dependencies, lifetime, timeout, retry or
    /// failure classification differ.
    public let changed: [String]
    /// Services of the new graph that are built again: added, changed, and their dependents.
    public let rebuilt: [String]
    /// Services of the new graph whose values carry over unchanged.
    public var carriedOver: [String] { carried.names }
    /// See ``carriedOver``: slots of the new graph, made into names when read (nearly every
    /// service of a large graph, for a reload that changed one).
    let carried: SlotNames
    /// Scopes whose services (or the app services they use) changed: their open instances are rebuilt.
    public let changedScopes: [String]
    /// Scopes the new graph no longer declares: their open instances are closed.
    public let removedScopes: [String]

    /// Whether the new graph is the same as the old one.
    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && changedScopes.isEmpty }
}

extension ServiceGraph {
    /// What replacing `old` with this graph changes.
    ///
    /// Providers are compared by id and value type: a service declared in code whose closure
    /// changed under the same id is not seen as changed (give it other options or another id).
    public func changes(from old: ServiceGraph) -> GraphChanges {
        // A reload usually keeps the services in place: each node is first compared with the
        // old node in the same slot, and the names are hashed only for those that moved.
        var added: [String] = []
        var changedSlots: [Int] = []
        var matched = 0
        let names = serviceNames
        // With the same names in the same slots, equal dependency slots are equal dependency
        // names: integers compared instead of strings.
        let oldNames = old.serviceNames
        let sameSlots = names == oldNames
        for (slot, node) in nodes.enumerated() {
            guard let oldSlot = sameSlots ? slot : old.slot(of: names[slot], near: slot, names: oldNames) else {
                added.append(names[slot])
                continue
            }
            matched += 1
            let oldNode = old.nodes[oldSlot]
            // A node shared by both versions (a graph built from the same specs or nodes) is
            // the same declaration without comparing its fields.
            if node !== oldNode && !node.sameDeclaration(as: oldNode, sameSlots: sameSlots) {
                changedSlots.append(slot)
            }
        }
        // Names are unique: when every old node was matched, none was removed.
        var removed: [String] = []
        if matched < old.nodes.count {
            for (slot, name) in oldNames.enumerated() where self.slot(of: name, near: slot, names: names) == nil {
                removed.append(name)
            }
        }
        let newSlots = layout.slots
        let addedSlots = added.compactMap { newSlots[$0] }
        var isRebuilt = [Bool](repeating: false, count: nodes.count)
        let rebuiltSlots = closure(ofDependentsOf: changedSlots + addedSlots).sorted()
        for slot in rebuiltSlots { isRebuilt[slot] = true }
        let carried = isRebuilt.indices.filter { !isRebuilt[$0] }

        var changedScopes: [String] = []
        for scope in scopeNames {
            guard let oldPart = old.scopeParts[scope], let newPart = scopeParts[scope] else { continue }
            let touched = newPart.nodes.contains { newSlots[$0.name].map { isRebuilt[$0] } ?? false }
            if touched || oldPart.serviceNames != newPart.serviceNames { changedScopes.append(scope) }
        }
        return GraphChanges(
            added: added, removed: removed, changed: changedSlots.map { names[$0] },
            rebuilt: rebuiltSlots.map { names[$0] }, carried: SlotNames(carried, of: names),
            changedScopes: changedScopes,
            removedScopes: old.scopeNames.filter { !scopeNames.contains($0) })
    }
}

extension ServiceGraph {
    /// The slot of `name`: `guess` when that slot holds it (no hashing), else a lookup.
    func slot(of name: String, near guess: Int) -> Int? { slot(of: name, near: guess, names: serviceNames) }

    /// ``slot(of:near:)`` with `names`, this graph's ``serviceNames``, read once for a loop.
    func slot(of name: String, near guess: Int, names: [String]) -> Int? {
        // From the layout's array of names: no visit to the node (a cache miss in a large graph).
        if guess < names.count && names[guess] == name { return guess }
        return layout.slots[name]
    }
}

extension ServiceGraph.Node {
    /// Whether two nodes declare the same service (name aside): same provider id and value
    /// type, options, dependencies, lifetime, timeout, retry and failure classification.
    /// `sameSlots`: both graphs have the same names in the same slots, so the dependencies'
    /// slots can be compared instead of their names.
    func sameDeclaration(as other: ServiceGraph.Node, sameSlots: Bool = false) -> Bool {
        let sameDependencies =
            sameSlots ? dependencies == other.dependencies : dependencyNames == other.dependencyNames
        return sameDependencies && provider.id == other.provider.id
            && ObjectIdentifier(provider.valueType) == ObjectIdentifier(other.provider.valueType)
            && lifetime == other.lifetime && timeout == other.timeout && retry == other.retry
            && defaultFailure == other.defaultFailure && options == other.options
    }
}
