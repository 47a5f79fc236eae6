public import Container
public import ContainerTesting

/// Everything one run of a story (or of a config) produced: the trace, the builds, what the
/// entry points did, and whether the story held.
public struct ScenarioReport: Sendable {
    /// The story told.
    public let scenario: DemoScenario
    /// A one-line title, e.g. `cold start: 4 entry points race for 5 services (Configs/app.json)`.
    public let title: String
    /// The graph that was built (`nil` only when a story's built-in graph was invalid).
    public let graph: ServiceGraph?
    /// Every trace event, in order.
    public let events: [TraceEvent]
    /// The build reports the callers saw, one per build attempt, in order.
    public let reports: [BuildReport]
    /// What each step and entry point did, one line each.
    public let narrative: [String]
    /// The story's claims and whether they held.
    public let checks: [CheckResult]
    /// For a config run: whether a snapshot was published (exit status 0 or 1).
    public let published: Bool
    /// Whether this was a run of a config file (exit status 0 or 1) rather than a built-in story.
    public let isConfigRun: Bool
    /// `container.status` at the end of the run, before the demo shut the container down
    /// (`--status` prints it as JSON); `nil` when the run had no container.
    public var status: ContainerStatus? = nil
    /// Hides the secret option values of the run's config in what the demo prints itself; `nil`:
    /// the graph's (``/Container/ServiceGraph/redactor``), as for every run of one config.
    var secretRedactor: Redactor?
    /// Whether the trace was already written, event by event, as the run went (`--trace jsonl`).
    var streamed = false

    /// The process exit status this run asks for.
    ///
    /// A config run exits 0 when a snapshot was published and 1 when the build failed
    /// (the README's exit statuses, whatever else happened; a broken runtime invariant is reported on standard
    /// error as a warning). A story exits 0 when every claim held, else 1.
    public var exitCode: Int32 {
        if isConfigRun { return published ? 0 : 1 }
        return checks.allSatisfy(\.passed) ? 0 : 1
    }

    /// The redactor of what the demo prints itself: ``secretRedactor``, else the graph's.
    var redactor: Redactor { secretRedactor ?? graph?.redactor ?? Redactor() }

    /// The checks that failed.
    public var failedChecks: [CheckResult] { checks.filter { !$0.passed } }
}
