/// Renders a service graph as a Mermaid flowchart, each node coloured by its outcome in a
/// build and labelled with its duration.
///
/// Nodes get generated ids (`n0`, `n1`, ... in declaration order) and quoted labels in
/// which every character Mermaid treats specially is written as an entity code
/// (`#34;` for `"`), so any service name works.
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

    /// The flowchart of `graph` with the outcomes of `report` (or uncoloured when `nil`).
    ///
    /// - Parameters:
    ///   - graph: the services and their dependencies.
    ///   - report: a build of that graph; nodes it lacks are drawn as "not built".
    public func render(_ graph: ServiceGraph, report: BuildReport?) -> String {
        let names = graph.serviceNames
        var ids: [String: String] = [:]
        for (index, name) in names.enumerated() { ids[name] = "n\(index)" }
        var lines = ["flowchart \(direction)"]
        var classes: [String: [String]] = [:]
        for name in names {
            let id = ids[name] ?? name
            let style = OutcomeStyle(report?.node(name))
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
        for styleName in OutcomeStyle.allNames {
            guard let members = classes[styleName] else { continue }
            let colours = OutcomeStyle.colours(of: styleName)
            lines.append("    classDef \(styleName) fill:\(colours.fill),stroke:\(colours.stroke)")
            lines.append("    class \(members.joined(separator: ",")) \(styleName)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
