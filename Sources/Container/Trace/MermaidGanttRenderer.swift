/// Renders build timelines as a Mermaid gantt chart: one bar per node that ran, from its
/// start to its outcome, one section per build attempt.
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

    /// The gantt chart of `reports`, one section per report, in the order given.
    public func render(_ reports: [BuildReport]) -> String {
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
                guard let start = node.startedAt, let end = node.endedAt else {
                    lines.append("    %% \(TraceText.mermaidEscaped(node.name)): \(node.outcome.name), did not run")
                    continue
                }
                let tag: String
                switch node.outcome {
                case .succeeded: tag = "done, "
                case .failed: tag = "crit, "
                case .cancelled: tag = "active, "
                case .reused, .skipped: tag = ""
                }
                let from = Self.floorMilliseconds(start)
                let to = max(Self.ceilMilliseconds(end), from)
                lines.append(
                    "    \(TraceText.mermaidEscaped(node.name)) :\(tag)t\(taskNumber), \(from), \(to)")
                taskNumber += 1
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The gantt chart of one build.
    public func render(_ report: BuildReport) -> String { render([report]) }

    static func floorMilliseconds(_ value: Duration) -> Int64 {
        let micro = TraceText.microseconds(value)
        return micro >= 0 ? micro / 1_000 : (micro - 999) / 1_000
    }

    static func ceilMilliseconds(_ value: Duration) -> Int64 {
        let micro = TraceText.microseconds(value)
        return micro >= 0 ? (micro + 999) / 1_000 : micro / 1_000
    }
}
