public import Container

/// Renders a service graph as Graphviz DOT, each node coloured by its outcome in a build
/// and labelled with its duration; each scope instance of a trace is drawn as a cluster.
///
/// Edges point from a dependency to the service that needs it. Any service name works:
/// names are quoted identifiers with `"` and `\` escaped.
///
/// ```swift
/// let dot = DOTRenderer().render(container.graph, report: services.report, trace: recorder.events)
/// // dot -Tsvg services.dot > services.svg
/// ```
public struct DOTRenderer: Sendable {
    /// The graph's name in the DOT output.
    public var title: String

    /// A renderer whose `digraph` is called `title`.
    public init(title: String = "services") {
        self.title = title
    }

    /// The DOT text of `graph`, with the outcomes of `report` (or uncoloured when `nil`), and one
    /// cluster (`subgraph cluster_0`, ...) per scope instance of `trace`.
    ///
    /// - Parameters:
    ///   - graph: the services and their dependencies.
    ///   - report: a build of that graph; nodes it lacks are drawn as "not built", with their
    ///     start policy when it is not eager and "optional" for an optional service
    ///     ("not built (lazy, optional)").
    ///   - trace: the run's events; each scope instance in it (events with a `scope`) becomes a
    ///     cluster labelled with the instance, holding the nodes its builds ran, coloured by
    ///     their outcome in its latest build. Empty (the default) for the app alone.
    public func render(_ graph: ServiceGraph, report: BuildReport?, trace: [TraceEvent] = []) -> String {
        let scopes = ScopeInstances(trace)
        let appNames = graph.serviceNames.filter { !scopes.scopedOnly.contains($0) }
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
        let reported = report?.nodesByName() ?? [:]
        for name in appNames {
            let style = OutcomeStyle(
                reported[name], policy: graph.startPolicy(of: name), optional: graph.isOptional(name) == true)
            lines.append(node(name, label: report == nil ? name : name + "\n" + style.label, style, indent: "    "))
        }
        for name in appNames {
            for dependency in graph.dependencies(of: name) ?? [] {
                let upstream = OutcomeStyle(reported[dependency]).name
                // A dependency without a value never fed its dependent: dashed.
                lines.append(edge(dependency, name, dashed: report != nil && !Self.hasValue(upstream)))
            }
        }
        lines += clusters(scopes, graph: graph, appNames: appNames)
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// One `subgraph cluster_N` per scope instance (a nested instance's inside its parent's),
    /// and the edges into and inside it.
    private func clusters(_ scopes: ScopeInstances, graph: ServiceGraph, appNames: [String]) -> [String] {
        var used = Set(appNames)
        let app = Set(appNames)
        // Node ids are free text in DOT; keep each instance's apart from the app's and each other's.
        var ids: [[String: String]] = []
        for instance in scopes.instances {
            var instanceIDs: [String: String] = [:]
            for name in instance.nodeNames {
                var id = instance.label + "/" + name
                while used.contains(id) { id += "'" }
                used.insert(id)
                instanceIDs[name] = id
            }
            ids.append(instanceIDs)
        }
        var lines: [String] = []
        func cluster(_ index: Int, indent: String) {
            let instance = scopes.instances[index]
            lines.append("\(indent)subgraph cluster_\(index) {")
            lines.append("\(indent)    label=\(TraceText.dotQuoted(instance.label));")
            lines.append("\(indent)    style=\"rounded,dashed\";")
            for name in instance.nodeNames {
                guard let id = ids[index][name] else { continue }
                let style = OutcomeStyle(traced: instance.latest(name))
                lines.append(node(id, label: name + "\n" + style.label, style, indent: indent + "    "))
            }
            for child in scopes.children(of: index) { cluster(child, indent: indent + "    ") }
            lines.append("\(indent)}")
        }
        for index in scopes.children(of: nil) { cluster(index, indent: "    ") }
        for (index, instance) in scopes.instances.enumerated() {
            let chain = scopes.chain(of: index)
            for name in instance.nodeNames {
                guard let id = ids[index][name] else { continue }
                for dependency in graph.dependencies(of: name) ?? [] {
                    // The instance's own node, else its parents' (innermost first), else the app's.
                    let owner = chain.first { ids[$0][dependency] != nil }
                    let upstream =
                        owner.flatMap { ids[$0][dependency] } ?? (app.contains(dependency) ? dependency : nil)
                    guard let upstream else { continue }
                    let value =
                        owner == nil
                        || Self.hasValue(OutcomeStyle(traced: scopes.instances[owner ?? index].latest(dependency)).name)
                    lines.append(edge(upstream, id, dashed: !value))
                }
            }
        }
        return lines
    }

    private func node(_ id: String, label: String, _ style: OutcomeStyle, indent: String) -> String {
        "\(indent)\(TraceText.dotQuoted(id)) [label=\(TraceText.dotQuoted(label)), "
            + "fillcolor=\(TraceText.dotQuoted(style.fill)), color=\(TraceText.dotQuoted(style.stroke))];"
    }

    private func edge(_ from: String, _ to: String, dashed: Bool) -> String {
        "    \(TraceText.dotQuoted(from)) -> \(TraceText.dotQuoted(to))" + (dashed ? " [style=dashed];" : ";")
    }

    private static func hasValue(_ style: String) -> Bool { style == "succeeded" || style == "reused" }
}
