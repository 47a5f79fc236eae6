extension ServiceGraph {
    /// Every declared scope's part (see ``part(of:scope:reads:relayed:app:nested:)``), by name; a
    /// nested scope's part is also in its parent's part's ``scopeParts``.
    static func parts(
        of nodes: [Node], scopes: [Scope], reads: [String: Set<String>], app: ServiceLayout?
    ) -> [String: ServiceGraph] {
        guard !scopes.isEmpty else { return [:] }
        var children: [String: [Scope]] = [:]
        for scope in scopes { if let parent = scope.parent { children[parent, default: []].append(scope) } }
        var parts: [String: ServiceGraph] = [:]
        // Depth first, children before their parent: a part relays what its nested scopes use.
        func make(_ scope: Scope, app: ServiceLayout?) -> ServiceGraph {
            let nested = (children[scope.name] ?? []).map { make($0, app: nil) }
            let part = Self.part(
                of: nodes, scope: scope.name, reads: reads[scope.name] ?? [],
                relayed: Set(nested.flatMap { $0.nodes[$0.builtCount...].map(\.name) }), app: app,
                nested: children[scope.name] ?? [], nestedParts: nested)
            parts[scope.name] = part
            return part
        }
        for scope in scopes where scope.parent == nil { _ = make(scope, app: app) }
        return parts
    }

    /// The part of a validated graph that one coordinator builds (see <doc:Scopes>): for the app, its
    /// app services; for a scope, the scope's services followed by the services of its parent
    /// chain they depend on or the scope's entry points read (`reads`), then those only its
    /// nested scopes use (`relayed`), as external nodes whose values come from the parent
    /// instance's snapshot. Validation guarantees that a service depends only on services of
    /// its own scope and of the scopes (and app) above it.
    static func part(
        of nodes: [Node], scope: String?, reads: Set<String>, relayed: Set<String> = [], app: ServiceLayout? = nil,
        nested: [Scope] = [], nestedParts: [ServiceGraph] = []
    ) -> ServiceGraph {
        let own = nodes.indices.filter { nodes[$0].lifetime.scope == scope }
        var newSlot = [Int: Int]()
        for (slot, old) in own.enumerated() { newSlot[old] = slot }
        var externals: [Int] = []
        var relayedFrom = own.count
        if scope != nil {
            let needed = Set(own.flatMap { nodes[$0].dependencies }.filter { newSlot[$0] == nil })
            externals = nodes.indices.filter {
                needed.contains($0) || (reads.contains(nodes[$0].name) && newSlot[$0] == nil)
            }
            relayedFrom += externals.count
            let used = Set(externals)
            externals += nodes.indices.filter {
                !used.contains($0) && relayed.contains(nodes[$0].name) && newSlot[$0] == nil
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
                    dependencyNames: node.dependencyNames, settings: node.settings, timeout: node.timeout,
                    retry: node.retry, defaultFailure: node.defaultFailure,
                    lifetime: node.lifetime, groups: node.groups, declaration: node.declaration))
        }
        for old in externals {
            let node = nodes[old]
            partNodes.append(
                Node(
                    name: node.name, provider: node.provider, dependencies: [], dependencyNames: [],
                    settings: node.settings, timeout: nil, retry: .none, defaultFailure: nil,
                    lifetime: node.lifetime, isExternal: true, declaration: node.declaration))
        }
        var parts: [String: ServiceGraph] = [:]
        for (declared, part) in zip(nested, nestedParts) { parts[declared.name] = part }
        return ServiceGraph(
            nodes: partNodes, scopes: nested, builtCount: own.count, scope: scope, appOnly: nil, scopeParts: parts,
            relayedFrom: relayedFrom,
            appSlots: app.flatMap { layout in
                let slots = externals.compactMap { layout.slots[nodes[$0].name] }
                return slots.count == externals.count ? (layout.id, slots) : nil
            })
    }

    /// The names of the services of the parent chain a scope's part uses (its external nodes).
    var externalNames: Set<String> { Set(nodes[builtCount...].map(\.name)) }
}
