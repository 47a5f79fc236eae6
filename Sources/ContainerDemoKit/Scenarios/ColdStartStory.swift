import Container
import ContainerTesting

/// Cold start: the four entry points (and any generic callers) race; one build serves them all.
enum ColdStartStory {
    static func run(callers generic: Int, retries: Int) async -> ScenarioReport {
        let stage: StoryStage
        switch StoryStage.make(StoryApp.Lab(), retries: retries) {
        case .success(let made): stage = made
        case .failure(let error): return StoryStage.broken(.coldStart, error)
        }
        let callers = stage.callers(generic: generic)
        let results = await CallerRace.run(callers, on: stage.container)
        let events = stage.events
        let checks =
            sharedBuildChecks(events, callers: callers.count, results: results)
            + stage.app.graph.serviceNames.map { name in
                CheckResult(
                    "the provider of \(name) ran exactly once", stage.lab.runs(of: name) == 1,
                    detail: "it ran \(stage.lab.runs(of: name)) times")
            }
        return stage.report(
            .coldStart,
            title: "cold start: \(callers.count) callers race for \(stage.app.graph.count) services (built-in app)",
            reports: CallerRace.reports(results, published: stage.container.current),
            narrative: results.map(\.line), checks: checks)
    }

    /// The facts of a cold start that any graph shows: one build, every caller served by it.
    static func sharedBuildChecks(_ events: [TraceEvent], callers: Int, results: [RaceResult]) -> [CheckResult] {
        let builds = events.count("build.started")
        let joins = events.joinStates
        let starters = joins.filter { $0.state == .idle }.map(\.caller)
        let others = joins.filter { $0.state != .idle }
        return [
            CheckResult("one build for all \(callers) callers", builds == 1, detail: "\(builds) builds started"),
            CheckResult(
                "exactly one caller found the container idle and started the build", starters.count == 1,
                detail: "found idle: \(starters)"),
            CheckResult(
                "every other caller joined the running build or found the snapshot ready",
                others.allSatisfy { $0.state == .running || $0.state == .ready } && joins.count == callers,
                detail:
                    "\(joins.count) joins for \(callers) callers; states \(Set(others.map(\.state.rawValue)).sorted())"),
            CheckResult(
                "every caller got the services", results.allSatisfy(\.succeeded),
                detail: results.filter { !$0.succeeded }.map(\.line).joined(separator: "; ")),
        ]
    }
}
