public import Container

/// Renders build timelines as a Mermaid gantt chart: one bar per node that ran, from its
/// start to its outcome, one section per build attempt of the app and one per scope instance.
///
/// Times are milliseconds since the container was created (`dateFormat x`), at 1 ms
/// resolution: a bar starts at its start rounded down and ends at its end rounded up.
/// Failed nodes are marked `crit`, succeeded ones `done`, cancelled ones `active`; nodes
/// that did not run (reused, skipped, cancelled before start) are listed as comments.
///
/// ```swift
/// print(MermaidGanttRenderer().render([services.report]))
/// ```
public struct MermaidGanttRenderer: Sendable {
    /// The chart's title.
    public var title: String

    /// A renderer whose chart is called `title`.
    public init(title: String = "Service build timeline") {
        self.title = title
    }

    /// The gantt chart of `reports`, one section per report, in the order given, then one
    /// section per scope instance of `trace`.
    ///
    /// - Parameters:
    ///   - reports: the app's builds.
    ///   - trace: the run's events; each scope instance in it (events with a `scope`) gets a
    ///     section with the nodes of all its builds (a bar's name says its build when the
    ///     instance had more than one). Empty (the default) for the app alone.
    public func render(_ reports: [BuildReport], trace: [TraceEvent] = []) -> String {
        var lines = [
            "gantt",
            "    title \(TraceText.mermaidEscaped(title))",
            "    dateFormat x",
            "    axisFormat %S.%L s",
        ]
        var taskNumber = 0
        for report in reports {
            let state = report.succeeded ? "published" : report.wasCancelled ? "cancelled" : "failed"
            lines.append("    section generation \(report.generation), attempt \(report.attempt), \(state)")
            for node in report.nodes {
                lines.append(
                    bar(node.name, node.outcome.name, tag(node.outcome), node.startedAt, node.endedAt, &taskNumber))
            }
        }
        for instance in ScopeInstances(trace).instances {
            let states = instance.builds.map(\.state)
            lines.append(
                "    section \(TraceText.mermaidEscaped(instance.label)), \(states.joined(separator: " then "))")
            for build in instance.builds {
                let suffix = instance.builds.count > 1 ? " (\(build.build))" : ""
                for node in build.nodes {
                    let outcome = node.outcome.map { String($0.name.dropFirst("node.".count)) } ?? "running"
                    let end = node.ended ?? (node.outcome == nil ? build.end?.time : nil)
                    lines.append(
                        bar(node.name + suffix, outcome, tag(node.outcome), node.started, end, &taskNumber))
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The gantt chart of one build.
    public func render(_ report: BuildReport) -> String { render([report]) }

    /// A bar from `start` to `end`, or a comment for a node that did not run.
    private func bar(
        _ name: String, _ outcome: String, _ tag: String, _ start: Duration?, _ end: Duration?, _ number: inout Int
    ) -> String {
        guard let start, let end else {
            return "    %% \(TraceText.mermaidGanttTask(name)): \(outcome), did not run"
        }
        let from = Self.floorMilliseconds(start)
        let to = max(Self.ceilMilliseconds(end), from)
        defer { number += 1 }
        return "    \(TraceText.mermaidGanttTask(name)) :\(tag)t\(number), \(from), \(to)"
    }

    private func tag(_ outcome: NodeOutcome) -> String {
        switch outcome {
        case .succeeded: "done, "
        case .failed: "crit, "
        case .cancelled: "active, "
        case .reused, .skipped: ""
        }
    }

    private func tag(_ outcome: TraceEvent.Kind?) -> String {
        switch outcome {
        case .nodeSucceeded?: "done, "
        case .nodeFailed?: "crit, "
        case .nodeCancelled?: "active, "
        default: ""
        }
    }

    static func floorMilliseconds(_ value: Duration) -> Int64 {
        let micro = DurationFormat.wholeMicroseconds(value)
        return micro >= 0 ? micro / 1_000 : (micro - 999) / 1_000
    }

    static func ceilMilliseconds(_ value: Duration) -> Int64 {
        let micro = DurationFormat.wholeMicroseconds(value)
        return micro >= 0 ? (micro + 999) / 1_000 : micro / 1_000
    }
}
