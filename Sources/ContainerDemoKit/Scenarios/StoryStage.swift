import Container
import ContainerTesting

/// The set of one built-in story: the app, its lab, the container, and the trace it records.
struct StoryStage: Sendable {
    let app: StoryApp
    let container: ServiceContainer
    let trace: TraceWatcher

    /// Builds the stage, or returns why the built-in graph is invalid (a bug in the demo).
    ///
    /// - Parameter retries: `--retries N`: the container's attempt budget is 1 + N builds per generation.
    static func make(_ lab: StoryApp.Lab, retries: Int = 0) -> Result<StoryStage, GraphError> {
        do {
            let app = try StoryApp(lab: lab)
            let trace = TraceWatcher()
            let policy = AttemptBudget.policy(.default, retries: retries)
            let container = ServiceContainer(graph: app.graph, policy: policy, trace: [trace])
            return .success(StoryStage(app: app, container: container, trace: trace))
        } catch {
            return .failure(error)
        }
    }

    var lab: StoryApp.Lab { app.lab }
    var events: [TraceEvent] { trace.events }

    /// The entry points plus `generic` generic callers.
    func callers(generic: Int) -> [RaceCaller] {
        app.entryPoints.map { RaceCaller.entryPoint($0) } + (0..<generic).map { RaceCaller.generic("caller-\($0 + 1)") }
    }

    /// A report of this stage's run, with the general invariants added to the story's own checks.
    func report(
        _ scenario: DemoScenario, title: String, reports: [BuildReport], narrative: [String], checks: [CheckResult]
    ) -> ScenarioReport {
        let events = events
        var report = ScenarioReport(
            scenario: scenario, title: title, graph: app.graph, events: events, reports: reports,
            narrative: narrative, checks: checks + TraceInvariants.check(events, graph: app.graph),
            published: container.current != nil, isConfigRun: false)
        report.status = container.status
        return report
    }

    /// A report saying the story could not even start.
    static func broken(_ scenario: DemoScenario, _ error: GraphError) -> ScenarioReport {
        ScenarioReport(
            scenario: scenario, title: "\(scenario.name): the built-in graph is invalid", graph: nil,
            events: [], reports: [], narrative: [],
            checks: [CheckResult("the built-in graph is valid", false, detail: "\(error)")],
            published: false, isConfigRun: false)
    }
}

/// A query over a trace for the stories' checks (the others are ContainerTesting's).
extension [TraceEvent] {
    /// The states callers found, by caller, for `caller.joined` events.
    var joinStates: [(caller: String, state: TraceEvent.CallerState)] {
        compactMap { if case .callerJoined(let caller, let state, _) = $0.kind { (caller, state) } else { nil } }
    }
}
