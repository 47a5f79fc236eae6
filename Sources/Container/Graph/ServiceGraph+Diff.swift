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
    public let carriedOver: [String]
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
        for (slot, node) in nodes.enumerated() {
            guard let oldSlot = old.slot(of: node.name, near: slot) else {
                added.append(node.name)
                continue
            }
            if !node.sameDeclaration(as: old.nodes[oldSlot]) { changedSlots.append(slot) }
        }
        var removed: [String] = []
        for (slot, node) in old.nodes.enumerated() where self.slot(of: node.name, near: slot) == nil {
            removed.append(node.name)
        }
        let newSlots = layout.slots
        let addedSlots = added.compactMap { newSlots[$0] }
        var isRebuilt = [Bool](repeating: false, count: nodes.count)
        for slot in closure(ofDependentsOf: changedSlots + addedSlots) { isRebuilt[slot] = true }
        var rebuilt: [String] = []
        var carried: [String] = []
        carried.reserveCapacity(nodes.count)
        for (slot, node) in nodes.enumerated() {
            if isRebuilt[slot] { rebuilt.append(node.name) } else { carried.append(node.name) }
        }

        var changedScopes: [String] = []
        for scope in scopeNames {
            guard let oldPart = old.scopeParts[scope], let newPart = scopeParts[scope] else { continue }
            let touched = newPart.nodes.contains { newSlots[$0.name].map { isRebuilt[$0] } ?? false }
            if touched || oldPart.serviceNames != newPart.serviceNames { changedScopes.append(scope) }
        }
        return GraphChanges(
            added: added, removed: removed, changed: changedSlots.map { nodes[$0].name }, rebuilt: rebuilt,
            carriedOver: carried, changedScopes: changedScopes,
            removedScopes: old.scopeNames.filter { !scopeNames.contains($0) })
    }
}

extension ServiceGraph {
    /// The slot of `name`: `guess` when that slot holds it (no hashing), else a lookup.
    func slot(of name: String, near guess: Int) -> Int? {
        if guess < nodes.count && nodes[guess].name == name { return guess }
        return layout.slots[name]
    }
}

extension ServiceGraph.Node {
    /// Whether two nodes declare the same service (name aside): same provider id and value
    /// type, options, dependencies, lifetime, timeout, retry and failure classification.
    func sameDeclaration(as other: ServiceGraph.Node) -> Bool {
        provider.id == other.provider.id
            && ObjectIdentifier(provider.valueType) == ObjectIdentifier(other.provider.valueType)
            && options == other.options && dependencyNames == other.dependencyNames && lifetime == other.lifetime
            && timeout == other.timeout && retry == other.retry && defaultFailure == other.defaultFailure
    }
}
