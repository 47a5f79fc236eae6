/// Renders a service graph as Graphviz DOT, each node coloured by its outcome in a build
/// and labelled with its duration.
///
/// Edges point from a dependency to the service that needs it. Any service name works:
/// names are quoted identifiers with `"` and `\` escaped.
///
/// ```swift
/// let dot = DOTRenderer().render(container.graph, report: services.report)
/// // dot -Tsvg services.dot > services.svg
/// ```
public struct DOTRenderer: Sendable {
    /// The graph's name in the DOT output.
    public var title: String

    /// A renderer whose `digraph` is called `title`.
    public init(title: String = "services") {
        self.title = title
    }

    /// The DOT text of `graph`, with the outcomes of `report` (or uncoloured when `nil`).
    ///
    /// - Parameters:
    ///   - graph: the services and their dependencies.
    ///   - report: a build of that graph; nodes it lacks are drawn as "not built".
    public func render(_ graph: ServiceGraph, report: BuildReport?) -> String {
        var lines = ["digraph \(TraceText.dotQuoted(title)) {"]
        lines.append("    rankdir=LR;")
        lines.append("    node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];")
        if let report {
            let state = report.succeeded ? "published" : report.wasCancelled ? "cancelled" : "failed"
            let label =
                "generation \(report.generation), attempt \(report.attempt): \(state) in "
                + report.duration.formattedMilliseconds
            lines.append("    label=\(TraceText.dotQuoted(label));")
            lines.append("    labelloc=t;")
        }
        for name in graph.serviceNames {
            let style = OutcomeStyle(report?.node(name))
            let label = report == nil ? name : name + "\n" + style.label
            lines.append(
                "    \(TraceText.dotQuoted(name)) [label=\(TraceText.dotQuoted(label)), "
                    + "fillcolor=\(TraceText.dotQuoted(style.fill)), color=\(TraceText.dotQuoted(style.stroke))];")
        }
        for name in graph.serviceNames {
            for dependency in graph.dependencies(of: name) ?? [] {
                let upstream = OutcomeStyle(report?.node(dependency)).name
                // A dependency without a value never fed its dependent: dashed.
                let dashed = report != nil && upstream != "succeeded" && upstream != "reused"
                lines.append(
                    "    \(TraceText.dotQuoted(dependency)) -> \(TraceText.dotQuoted(name))"
                        + (dashed ? " [style=dashed];" : ";"))
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }
}
