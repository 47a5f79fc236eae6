import Container

extension ReportPrinter {
    /// The heading the `--status` JSON follows (the JSON starts on the next line).
    static let statusHeading = "container.status at the end of the run (JSON):"

    /// `--status`: the heading and `container.status` as JSON, for runs that had a container.
    func status(_ report: ScenarioReport) -> String? {
        guard let status = report.status else { return nil }
        let heading = labelled ? "\(Self.statusHeading) \(report.scenario.name)" : Self.statusHeading
        return heading + "\n" + StatusJSON.text(status, redactor: report.redactor)
    }
}
