extension ServiceGraph {
    /// The part of a validated graph that one coordinator builds (see <doc:Scopes>): for the app, its
    /// app services; for a scope, the scope's services followed by the app services they depend
    /// on or the scope's entry points read (`reads`), as external nodes whose values come from
    /// the app snapshot. Validation guarantees that app services depend only on app services
    /// and scoped ones only on their own scope's and app services.
    static func part(of nodes: [Node], scope: String?, reads: Set<String>, app: ServiceLayout? = nil) -> ServiceGraph {
        let own = nodes.indices.filter { nodes[$0].lifetime.scope == scope }
        var newSlot = [Int: Int]()
        for (slot, old) in own.enumerated() { newSlot[old] = slot }
        var externals: [Int] = []
        if scope != nil {
            let needed = Set(own.flatMap { nodes[$0].dependencies }.filter { nodes[$0].lifetime == .app })
            externals = nodes.indices.filter {
                needed.contains($0) || (reads.contains(nodes[$0].name) && nodes[$0].lifetime == .app)
            }
            for (offset, old) in externals.enumerated() { newSlot[old] = own.count + offset }
        }
        var partNodes: [Node] = []
        partNodes.reserveCapacity(own.count + externals.count)
        for old in own {
            let node = nodes[old]
            partNodes.append(
                Node(
                    name: node.name, provider: node.provider, dependencies: node.dependencies.map { newSlot[$0]! },
                    dependencyNames: node.dependencyNames, options: node.options, settings: node.settings,
                    timeout: node.timeout,
                    retry: node.retry, defaultFailure: node.defaultFailure, location: node.location,
                    lifetime: node.lifetime, groups: node.groups, declaration: node.declaration,
                    fingerprint: node.fingerprint))
        }
        for old in externals {
            let node = nodes[old]
            partNodes.append(
                Node(
                    name: node.name, provider: node.provider, dependencies: [], dependencyNames: [],
                    options: node.options, settings: node.settings, timeout: nil, retry: .none, defaultFailure: nil,
                    location: node.location,
                    lifetime: .app, isExternal: true, declaration: node.declaration))
        }
        return ServiceGraph(
            nodes: partNodes, scopeNames: [], builtCount: own.count, scope: scope, appOnly: nil, scopeParts: [:],
            appSlots: app.flatMap { layout in
                let slots = externals.compactMap { layout.slots[nodes[$0].name] }
                return slots.count == externals.count ? (layout.id, slots) : nil
            })
    }

    /// The names of the app services a scope's part uses (its external nodes).
    var externalNames: Set<String> { Set(nodes[builtCount...].map(\.name)) }
}
