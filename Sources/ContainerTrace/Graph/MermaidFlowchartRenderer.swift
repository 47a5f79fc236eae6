public import Container

/// Renders a service graph as a Mermaid flowchart, each node coloured by its outcome in a
/// build and labelled with its duration; each scope instance of a trace is a `subgraph`.
///
/// Nodes get generated ids (`n0`, `n1`, ... in declaration order; `s0n0`, ... inside scope
/// instances) and quoted labels in which every character Mermaid treats specially is written
/// as an entity code (`#34;` for `"`), so any service name works.
///
/// ```swift
/// print(MermaidFlowchartRenderer().render(container.graph, report: services.report))
/// ```
public struct MermaidFlowchartRenderer: Sendable {
    /// `LR` (left to right, the default) or `TD` (top down).
    public var direction: String

    /// A renderer drawing in `direction` (`LR` or `TD`).
    public init(direction: String = "LR") {
        self.direction = direction == "TD" || direction == "TB" ? direction : "LR"
    }

    /// The flowchart of `graph` with the outcomes of `report` (or uncoloured when `nil`), and one
    /// `subgraph` per scope instance of `trace`.
    ///
    /// - Parameters:
    ///   - graph: the services and their dependencies.
    ///   - report: a build of that graph; nodes it lacks are drawn as "not built", with their
    ///     start policy when it is not eager and "optional" for an optional service
    ///     ("not built (lazy, optional)").
    ///   - trace: the run's events; each scope instance in it (events with a `scope`) becomes a
    ///     subgraph titled with the instance, holding the nodes its builds ran, coloured by their
    ///     outcome in its latest build. Empty (the default) for the app alone.
    public func render(_ graph: ServiceGraph, report: BuildReport?, trace: [TraceEvent] = []) -> String {
        let scopes = ScopeInstances(trace)
        let names = graph.serviceNames.filter { !scopes.scopedOnly.contains($0) }
        var ids: [String: String] = [:]
        for (index, name) in names.enumerated() { ids[name] = "n\(index)" }
        var lines = ["flowchart \(direction)"]
        var classes: [String: [String]] = [:]
        let reported = report?.nodesByName() ?? [:]
        for name in names {
            let id = ids[name] ?? name
            let style = OutcomeStyle(
                reported[name], policy: graph.startPolicy(of: name), optional: graph.isOptional(name) == true)
            let label =
                TraceText.mermaidEscaped(name) + (report == nil ? "" : "<br/>" + TraceText.mermaidEscaped(style.label))
            lines.append("    \(id)[\"\(label)\"]")
            if report != nil { classes[style.name, default: []].append(id) }
        }
        for name in names {
            for dependency in graph.dependencies(of: name) ?? [] {
                guard let from = ids[dependency], let to = ids[name] else { continue }
                lines.append("    \(from) --> \(to)")
            }
        }
        // Each instance's node ids; a nested instance's subgraph sits inside its parent's.
        var scoped: [[String: String]] = []
        for (index, instance) in scopes.instances.enumerated() {
            var own: [String: String] = [:]
            for (number, name) in instance.nodeNames.enumerated() { own[name] = "s\(index)n\(number)" }
            scoped.append(own)
        }
        func subgraph(_ index: Int, indent: String) {
            let instance = scopes.instances[index]
            lines.append("\(indent)subgraph s\(index)[\"\(TraceText.mermaidEscaped(instance.label))\"]")
            for name in instance.nodeNames {
                guard let id = scoped[index][name] else { continue }
                let style = OutcomeStyle(traced: instance.latest(name))
                let label = TraceText.mermaidEscaped(name) + "<br/>" + TraceText.mermaidEscaped(style.label)
                lines.append("\(indent)    \(id)[\"\(label)\"]")
                classes[style.name, default: []].append(id)
            }
            for child in scopes.children(of: index) { subgraph(child, indent: indent + "    ") }
            lines.append("\(indent)end")
        }
        for index in scopes.children(of: nil) { subgraph(index, indent: "    ") }
        for (index, instance) in scopes.instances.enumerated() {
            let chain = scopes.chain(of: index)
            for name in instance.nodeNames {
                for dependency in graph.dependencies(of: name) ?? [] {
                    let from = chain.lazy.compactMap { scoped[$0][dependency] }.first ?? ids[dependency]
                    guard let from, let to = scoped[index][name] else { continue }
                    lines.append("    \(from) --> \(to)")
                }
            }
        }
        for styleName in OutcomeStyle.allNames {
            guard let members = classes[styleName] else { continue }
            let colours = OutcomeStyle.colours(of: styleName)
            lines.append("    classDef \(styleName) fill:\(colours.fill),stroke:\(colours.stroke)")
            lines.append("    class \(members.joined(separator: ",")) \(styleName)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
