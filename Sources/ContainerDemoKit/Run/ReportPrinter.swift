import Container
import ContainerTesting
import ContainerTrace

/// Turns a ``ScenarioReport`` into text: the trace in the chosen format, and the commentary
/// (what the callers did, whether the story held).
struct ReportPrinter: Sendable {
    let format: TraceFormat
    let colors: Bool
    /// Whether several reports go to one output (`--scenario all`): traces are labelled.
    let labelled: Bool

    /// The trace of `report` in ``format``; for `text` it includes the commentary.
    func trace(_ report: ScenarioReport) -> String {
        guard let graph = report.graph else { return "" }
        switch format {
        case .jsonl:
            let fields = labelled ? [(name: "scenario", value: report.scenario.name)] : []
            return report.events.map { JSONLinesTraceSink.line(for: $0, fields: fields) + "\n" }.joined()
        case .dot:
            return DOTRenderer(title: report.scenario.name).render(
                graph, report: report.reports.last, trace: report.events)
        case .mermaid:
            return label(report)
                + MermaidFlowchartRenderer().render(graph, report: report.reports.last, trace: report.events)
        case .gantt:
            return label(report)
                + MermaidGanttRenderer(title: report.title).render(report.reports, trace: report.events)
        case .perfetto:
            return perfetto([report])
        default:
            return text(report)
        }
    }

    /// The Chrome trace JSON of `reports`, one document: each run's app process is named after
    /// its scenario when several runs share the file.
    func perfetto(_ reports: [ScenarioReport]) -> String {
        let runs = reports.map { report in
            (name: labelled ? "container (\(report.scenario.name))" : "container", events: report.events)
        }
        return PerfettoRenderer().render(runs: runs)
    }

    private func label(_ report: ScenarioReport) -> String {
        labelled ? "%% scenario: \(report.scenario.name)\n" : ""
    }

    /// The human-readable report: title, timeline, builds, callers, checks.
    func text(_ report: ScenarioReport) -> String {
        let renderer = TimelineRenderer(colored: colors)
        var text = paint("=== \(report.title) ===", "1") + "\n\n"
        text += paint("Timeline (ms since the container was created; g = generation, a = attempt)", "1") + "\n"
        text += renderer.renderEvents(report.events) + "\n"
        text += paint("Builds", "1") + "\n" + renderer.renderSummary(report.events) + "\n"
        text += commentary(report)
        return text
    }

    /// What the callers did and the story's checks.
    func commentary(_ report: ScenarioReport) -> String {
        var text = ""
        if !report.narrative.isEmpty {
            text += paint(report.isConfigRun ? "What the callers did" : "What happened", "1") + "\n"
            text += report.narrative.map { "  " + $0 + "\n" }.joined() + "\n"
        }
        text += paint(report.isConfigRun ? "Checks" : "Story: \(report.scenario.summary)", "1") + "\n"
        for check in report.checks {
            text +=
                "  " + paint(check.passed ? "✓" : "✗", check.passed ? "32" : "31") + " " + check.claim
                + (check.detail.map { ": " + $0 } ?? "") + "\n"
        }
        return text
    }

    /// The verdict for standard error when the run did not go well; `nil` when it did.
    func verdict(_ report: ScenarioReport) -> String? {
        let failed = report.failedChecks
        if report.isConfigRun {
            var verdict = ""
            if !failed.isEmpty {
                verdict +=
                    "container-demo: warning: the trace broke the runtime's invariants (a bug in the container):\n"
                    + failed.map { "  ✗ \($0.claim): \($0.detail ?? "")\n" }.joined()
            }
            if !report.published, let last = report.reports.last {
                let roots = last.failedNodes
                let kind = last.failure.map { "\($0) " } ?? ""
                verdict +=
                    "container-demo: the build failed (\(kind)failure"
                    + (roots.isEmpty ? "" : " of \(roots.joined(separator: ", "))") + "); no snapshot was published\n"
            } else if !report.published {
                // No build ended with a failure: it was cancelled (a signal's shutdown) or never ran.
                verdict += "container-demo: no snapshot was published\n"
            }
            return verdict.isEmpty ? nil : verdict
        }
        guard !failed.isEmpty else { return nil }
        return "container-demo: the \(report.scenario.name) story did not behave as it says:\n"
            + failed.map { "  ✗ \($0.claim): \($0.detail ?? "")\n" }.joined()
    }

    private func paint(_ text: String, _ code: String) -> String {
        colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
