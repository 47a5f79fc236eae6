import Container

/// The scope instances of a trace, as the graph renderers draw them: one group per instance
/// (Container's Scopes article), in the order of the instances' first events, a nested
/// instance's group inside its parent's.
struct ScopeInstances {
    /// One scope instance: its builds and the nodes they built.
    struct Instance {
        /// The instance's label, e.g. `push#notification-42`.
        let label: String
        /// Its builds, in trace order.
        var builds: [TracedBuild] = []

        /// Every node with an event in one of the builds, in the order of their first event.
        var nodeNames: [String] {
            var seen: Set<String> = []
            return builds.flatMap(\.nodes).map(\.name).filter { seen.insert($0).inserted }
        }

        /// The node's part in the instance's latest build, `nil` when that build lacks it.
        func latest(_ name: String) -> TracedBuild.Node? {
            builds.last?.nodes.first { $0.name == name }
        }
    }

    /// Every scope instance of the trace; empty for an app-only trace.
    let instances: [Instance]
    /// For each instance, the index of the instance it was opened from (its label up to the
    /// last `/`: `account#ada` for `account#ada/scene#window-1`), `nil` for a top-level one.
    let parents: [Int?]
    /// Nodes only scope instances built: the app part of a drawing leaves them out, so a scoped
    /// service is not drawn as an app service that was never built.
    let scopedOnly: Set<String>

    /// Groups the events of `events` by scope instance.
    init(_ events: [TraceEvent]) {
        var order: [String] = []
        var byLabel: [String: Instance] = [:]
        for event in events {
            guard let label = event.scope, byLabel[label] == nil else { continue }
            order.append(label)
            byLabel[label] = Instance(label: label)
        }
        var appNodes: Set<String> = []
        var scopedNodes: Set<String> = []
        for build in TracedBuild.builds(in: events) {
            guard let label = build.scope else {
                appNodes.formUnion(build.nodes.map(\.name))
                continue
            }
            scopedNodes.formUnion(build.nodes.map(\.name))
            byLabel[label]?.builds.append(build)
        }
        instances = order.compactMap { byLabel[$0] }
        scopedOnly = scopedNodes.subtracting(appNodes)
        var index: [String: Int] = [:]
        for (position, instance) in instances.enumerated() { index[instance.label] = position }
        parents = instances.map { instance in
            guard let slash = instance.label.lastIndex(of: "/") else { return nil }
            return index[String(instance.label[..<slash])]
        }
    }

    /// The instances opened from instance `parent` (`nil`: the top-level ones), in trace order.
    func children(of parent: Int?) -> [Int] { instances.indices.filter { parents[$0] == parent } }

    /// `index` and the instances it was opened from, innermost first.
    func chain(of index: Int) -> [Int] {
        var chain = [index]
        while let parent = parents[chain[chain.count - 1]], !chain.contains(parent) { chain.append(parent) }
        return chain
    }
}
