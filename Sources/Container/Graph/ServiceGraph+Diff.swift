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
        let oldSlots = old.layout.slots
        let newSlots = layout.slots
        let added = nodes.filter { oldSlots[$0.name] == nil }.map(\.name)
        let removed = old.nodes.filter { newSlots[$0.name] == nil }.map(\.name)
        var changedSlots: [Int] = []
        for (slot, node) in nodes.enumerated() {
            guard let oldSlot = oldSlots[node.name] else { continue }
            if !node.sameDeclaration(as: old.nodes[oldSlot]) { changedSlots.append(slot) }
        }
        let addedSlots = added.compactMap { newSlots[$0] }
        let rebuiltSlots = closure(ofDependentsOf: changedSlots + addedSlots)
        let rebuilt = nodes.indices.filter { rebuiltSlots.contains($0) }.map { nodes[$0].name }
        let carried = nodes.indices.filter { !rebuiltSlots.contains($0) }.map { nodes[$0].name }

        var changedScopes: [String] = []
        for scope in scopeNames {
            guard let oldPart = old.scopeParts[scope], let newPart = scopeParts[scope] else { continue }
            let touched = newPart.nodes.contains { rebuiltSlots.contains(newSlots[$0.name] ?? -1) }
            if touched || oldPart.serviceNames != newPart.serviceNames { changedScopes.append(scope) }
        }
        return GraphChanges(
            added: added, removed: removed, changed: changedSlots.map { nodes[$0].name }, rebuilt: rebuilt,
            carriedOver: carried, changedScopes: changedScopes,
            removedScopes: old.scopeNames.filter { !scopeNames.contains($0) })
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
