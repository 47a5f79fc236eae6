import Container

/// The set of one built-in story: the app, its lab, the container, and the trace it records.
struct StoryStage: Sendable {
    let app: StoryApp
    let container: ServiceContainer
    let signal: TraceSignal

    /// Builds the stage, or returns why the built-in graph is invalid (a bug in the demo).
    static func make(_ lab: StoryApp.Lab, policy: BuildPolicy = .default) -> Result<StoryStage, GraphError> {
        do {
            let app = try StoryApp(lab: lab)
            let signal = TraceSignal()
            let container = ServiceContainer(graph: app.graph, policy: policy, trace: [signal])
            return .success(StoryStage(app: app, container: container, signal: signal))
        } catch {
            return .failure(error)
        }
    }

    var lab: StoryApp.Lab { app.lab }
    var events: [TraceEvent] { signal.events }

    /// The entry points plus `generic` generic callers.
    func callers(generic: Int) -> [RaceCaller] {
        app.entryPoints.map { RaceCaller.entryPoint($0) } + (0..<generic).map { RaceCaller.generic("caller-\($0 + 1)") }
    }

    /// A report of this stage's run, with the general invariants added to the story's own checks.
    func report(
        _ scenario: DemoScenario, title: String, reports: [BuildReport], narrative: [String], checks: [StoryCheck]
    ) -> ScenarioReport {
        let events = events
        return ScenarioReport(
            scenario: scenario, title: title, graph: app.graph, events: events, reports: reports,
            narrative: narrative, checks: checks + TraceInvariants.check(events, graph: app.graph),
            published: container.current != nil, isConfigRun: false)
    }

    /// A report saying the story could not even start.
    static func broken(_ scenario: DemoScenario, _ error: GraphError) -> ScenarioReport {
        ScenarioReport(
            scenario: scenario, title: "\(scenario.name): the built-in graph is invalid", graph: nil,
            events: [], reports: [], narrative: [],
            checks: [StoryCheck("the built-in graph is valid", false, detail: "\(error)")],
            published: false, isConfigRun: false)
    }
}

/// Small queries over a trace, for the stories' checks.
extension [TraceEvent] {
    /// Events of one generation and attempt.
    func of(generation: Int, attempt: Int) -> [TraceEvent] {
        let build = BuildAttempt(generation: generation, attempt: attempt)
        return filter { $0.build == build }
    }

    /// How many events have the given JSON Lines name.
    func count(_ name: String) -> Int { count { $0.kind.name == name } }

    /// The names of nodes with an event called `name`, in order.
    func nodes(_ name: String) -> [String] { filter { $0.kind.name == name }.compactMap(\.kind.node) }

    /// The states callers found, by caller, for `caller.joined` events.
    var joinStates: [(caller: String, state: CallerState)] {
        compactMap { if case .callerJoined(let caller, let state) = $0.kind { (caller, state) } else { nil } }
    }
}
