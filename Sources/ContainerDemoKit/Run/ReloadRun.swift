import Container
import ContainerTesting

/// A reload run (Container's Reload article): the old config's cold start, a reload to the new version, and the
/// new config's entry points run again; `container-demo --config A --reload B` and, with the
/// pair in `Configs/reload/`, `--scenario reload`.
///
/// Exit status for `--reload` (the README's exit statuses): 0 when the new generation published, 1 when a build
/// failed, 2 when either config is invalid (an invalid new config changes nothing: the old
/// snapshot stays published, and the demo says so).
enum ReloadRun {
    /// What the run did, for the report and the story's checks.
    struct Outcome: Sendable {
        let old: LoadedConfig
        let new: LoadedConfig
        let reload: ServiceContainer.ReloadReport
        let events: [TraceEvent]
        let before: [RaceResult]
        let after: [RaceResult]
        /// The snapshot published before the reload and the one after it.
        let publishedBefore: AppServices?
        let publishedAfter: AppServices?
        let status: ContainerStatus
        /// Where `generation.reset` of the reload is in ``events``.
        let resetIndex: Int?
    }

    /// Runs `old`, reloads it to the config at `newPath`, and runs again.
    static func run(
        old: LoadedConfig, newPath: String, pathRoots: [String: String], callers: Int?, retries: Int?,
        interrupt: DemoInterrupt, live: (any TraceSink)?
    ) async -> Result<Outcome, ConfigProblem> {
        let recorder = TraceRecorder()
        let policy = AttemptBudget.policy(old.policy, retries: retries)
        let container = ServiceContainer(
            graph: old.graph, policy: policy, trace: [recorder] + (live.map { [$0] } ?? []))
        interrupt.track(container)
        let before = await CallerRace.run(racers(old, callers: callers), on: container, retryAfter: policy.retryAfter)
        let publishedBefore = container.current

        let reloaded = await ConfigReload.reload(
            path: newPath, overlays: old.overlays, into: container, pathRoots: pathRoots)
        let new: LoadedConfig
        let reload: ServiceContainer.ReloadReport
        switch reloaded {
        case .success(let made): (new, reload) = made
        case .failure(.invalid(let problem)):
            // Said only when it is true: the container still publishes what it published before.
            let kept = container.current
            let state =
                kept.map { snapshot in
                    "nothing was reloaded: generation \(snapshot.generation)'s snapshot of \(old.file) is still "
                        + "published and the container goes on with it"
                } ?? "nothing was reloaded; the container goes on with \(old.file) (it had published no snapshot)"
            await interrupt.finish(container)
            return .failure(
                ConfigProblem(
                    description: problem.description + (problem.description.hasSuffix("\n") ? "" : "\n")
                        + "container-demo: \(newPath) is invalid; \(state)"))
        case .failure(.refused(let error)):
            await interrupt.finish(container)
            return .failure(ConfigProblem(description: "container-demo: the reload was refused: \(error.message)"))
        }

        let after = await CallerRace.run(racers(new, callers: callers), on: container, retryAfter: policy.retryAfter)
        let publishedAfter = container.current
        let status = container.status
        await interrupt.finish(container)
        let events = recorder.events
        let resetIndex = events.firstIndex {
            if case .generationReset(let change) = $0.kind, $0.scope == nil { change.reason == .reload } else { false }
        }
        return .success(
            Outcome(
                old: old, new: new, reload: reload, events: events, before: before, after: after,
                publishedBefore: publishedBefore, publishedAfter: publishedAfter, status: status,
                resetIndex: resetIndex))
    }

    /// The config's entry points and the generic callers (4 when it lists no entry points).
    private static func racers(_ config: LoadedConfig, callers: Int?) -> [RaceCaller] {
        let generic = callers ?? (config.entryPoints.isEmpty ? DemoOptions.defaultGenericCallers : 0)
        return config.entryPoints.map { RaceCaller.entryPoint($0) }
            + (0..<generic).map { RaceCaller.generic("caller-\($0 + 1)") }
    }

    /// The report of a `--config A --reload B` run: the narrative, and the checks every reload
    /// must pass (the runtime's invariants on each side of the reload, and the Reload article's promises).
    static func report(_ outcome: Outcome, scenario: DemoScenario, isConfigRun: Bool, extraChecks: [CheckResult] = [])
        -> ScenarioReport
    {
        // Both versions' secrets: the narrative quotes callers of each.
        let redactor = Redactor(combining: [outcome.old.graph.redactor, outcome.new.graph.redactor])
        var narrative = ["1. cold start of \(outcome.old.file):"]
        narrative += outcome.before.map { "   " + redactor.redact($0.line) }
        narrative.append("2. reload to \(outcome.new.file):")
        narrative += lines(of: outcome.reload).map { "   " + $0 }
        narrative.append("3. the entry points of \(outcome.new.file) run:")
        narrative += outcome.after.map { "   " + redactor.redact($0.line) }
        var report = ScenarioReport(
            scenario: scenario, title: "reload: \(outcome.old.file) → \(outcome.new.file)", graph: outcome.new.graph,
            events: outcome.events,
            reports: CallerRace.reports(outcome.before, published: outcome.publishedBefore)
                + CallerRace.reports(outcome.after, published: outcome.publishedAfter),
            narrative: narrative, checks: checks(outcome) + extraChecks,
            published: outcome.publishedAfter != nil, isConfigRun: isConfigRun)
        report.status = outcome.status
        report.secretRedactor = redactor
        return report
    }

    /// The `ServiceContainer.ReloadReport`, one line per list.
    static func lines(of report: ServiceContainer.ReloadReport) -> [String] {
        func list(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
        var lines = [
            "generation \(report.from) → \(report.to)",
            "added: \(list(report.added))",
            "removed: \(list(report.removed))",
            "changed: \(list(report.changed))",
            "rebuilt (changed, added and their dependents): \(list(report.rebuilt))",
            "carried over (same values, not rebuilt, not torn down): \(list(report.carriedOver))",
            "torn down, in order: "
                + list(
                    report.tornDown.map { teardown in
                        teardown.error.map { "\(teardown.service) (failed: \($0))" } ?? teardown.service
                    }),
        ]
        if let build = report.cancelledBuild { lines.append("cancelled the running build \(build)") }
        if !report.reloadedScopes.isEmpty { lines.append("scope instances rebuilt: \(list(report.reloadedScopes))") }
        if !report.closedScopes.isEmpty { lines.append("scope instances closed: \(list(report.closedScopes))") }
        return lines
    }

    /// What any reload shows: the runtime's invariants before it (old graph) and after it (new
    /// graph), the trace's `generation.reset`, and carried-over values neither rebuilt nor torn down.
    private static func checks(_ outcome: Outcome) -> [CheckResult] {
        let events = outcome.events
        let reload = outcome.reload
        let split = outcome.resetIndex ?? events.count
        let beforeChecks = TraceInvariants.check(Array(events[..<split]), graph: outcome.old.graph)
        let afterChecks = TraceInvariants.check(Array(events[split...]), graph: outcome.new.graph)
        let invariants = zip(beforeChecks, afterChecks).map { before, after in
            CheckResult(
                before.claim, before.passed && after.passed,
                detail: [before.detail.map { "before the reload: \($0)" }, after.detail.map { "after it: \($0)" }]
                    .compactMap { $0 }.joined(separator: "; "))
        }
        let change = outcome.resetIndex.flatMap { index -> TraceEvent.GenerationChange? in
            if case .generationReset(let change) = events[index].kind { return change }
            return nil
        }
        // Between the reload and the final shutdown: what the reload itself tore down, and what it built.
        let end = events.firstIndex { $0.kind == .containerShutdown && $0.scope == nil } ?? events.count
        let window = split < end ? Array(events[split..<end]) : []
        let tornDown = window.filter { $0.scope == nil }.nodes("node.tornDown")
        let started = window.filter { $0.scope == nil && $0.generation == reload.to }.nodes("node.started")
        let carried = Set(reload.carriedOver)
        return invariants + [
            CheckResult(
                "the trace has generation.reset \(reload.from) → \(reload.to) with reason reload and the added, "
                    + "removed and changed services",
                change.map {
                    $0.from == reload.from && $0.to == reload.to && $0.added == reload.added
                        && $0.removed == reload.removed && $0.changed == reload.changed
                } ?? false,
                detail: "generation.reset (reload): \(change.map { "\($0)" } ?? "none")"),
            // What had no value to keep (a failed generation's, retired at once) is built again too.
            CheckResult(
                "carried-over services are neither rebuilt nor torn down by the reload",
                carried.isDisjoint(with: started) && carried.isDisjoint(with: tornDown),
                detail: "started again: \(started.filter(carried.contains)); "
                    + "torn down: \(tornDown.filter(carried.contains))"),
        ]
    }
}
