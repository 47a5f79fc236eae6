import Container
import ContainerTesting

/// Runs a config: its entry points and `--callers` generic callers race at cold start.
///
/// Exit status (the README's exit statuses): 0 when a snapshot was published, 1 when the build failed.
enum ConfigRun {
    /// Races the config's entry points and `callers` generic callers (`nil`: 4 when the config
    /// lists no entry points), with the attempt budget of `retries` (``AttemptBudget``), then
    /// shuts the container down (or lets `interrupt`'s signal do it). `live` receives every
    /// event as it happens (`--trace jsonl` on standard output).
    static func run(
        _ config: LoadedConfig, callers: Int?, retries: Int?, interrupt: DemoInterrupt = DemoInterrupt(),
        live: (any TraceSink)? = nil
    ) async -> ScenarioReport {
        let recorder = TraceRecorder()
        let policy = AttemptBudget.policy(config.policy, retries: retries)
        let container = ServiceContainer(
            graph: config.graph, policy: policy, trace: [recorder] + (live.map { [$0] } ?? []))
        interrupt.track(container)
        let generic = callers ?? (config.entryPoints.isEmpty ? DemoOptions.defaultGenericCallers : 0)
        let racers =
            config.entryPoints.map { RaceCaller.entryPoint($0) }
            + (0..<generic).map { RaceCaller.generic("caller-\($0 + 1)") }
        let results = await CallerRace.run(racers, on: container, retryAfter: policy.retryAfter)
        let published = container.current
        let status = container.status
        // Shut down like an app would, so the trace ends with the teardowns (reverse order).
        await interrupt.finish(container)
        let events = recorder.events
        // The container redacts what it traces and reports; what callers print (an entry
        // point's own error, which may quote a secret option such as a database path) is ours.
        let redactor = config.graph.redactor
        let narrative = (results.count > 12 ? summarize(results) : results.map(\.line)).map(redactor.redact)
        let entryNames = config.entryPoints.map(\.id)
        let who =
            entryNames.isEmpty
            ? "\(generic) generic callers"
            : entryNames.joined(separator: ", ") + (generic > 0 ? " and \(generic) generic callers" : "")
        // With start policies, each caller asks for its own closure (start(): the eager services).
        let what =
            config.graph.declaresStartPolicies
            ? "what they need of \(config.graph.count) services" : "\(config.graph.count) services"
        var report = ScenarioReport(
            scenario: .coldStart, title: "cold start: \(who) race for \(what) (\(config.file))",
            graph: config.graph, events: events, reports: CallerRace.reports(results, published: published),
            narrative: narrative, checks: TraceInvariants.check(events, graph: config.graph),
            // A build a graceful shutdown let finish published before the shutdown cleared it.
            published: published != nil || events.contains { $0.scope == nil && $0.kind.name == "snapshot.published" },
            isConfigRun: true)
        report.status = status
        report.streamed = live != nil
        return report
    }

    /// The inputs the race's callers wait for, in declaration order: in the closure of what
    /// they ask for (the generic callers' `start()`: the eager services; an entry point: its
    /// needs, or the eager services when no start policy is declared).
    static func awaitedInputs(_ config: LoadedConfig, genericCallers: Int?) -> [String] {
        let graph = config.graph
        guard !graph.inputNames.isEmpty else { return [] }
        let generic = genericCallers ?? (config.entryPoints.isEmpty ? DemoOptions.defaultGenericCallers : 0)
        let eager = graph.serviceNames.filter { name in
            graph.startPolicy(of: name) == .eager && graph.lifetime(of: name)?.scope == nil
        }
        var roots = generic > 0 || !graph.declaresStartPolicies ? eager : []
        if graph.declaresStartPolicies { roots += config.entryPoints.flatMap { $0.requirements.map(\.name) } }
        var seen = Set<String>()
        while let name = roots.popLast() {
            guard seen.insert(name).inserted else { continue }
            roots += graph.dependencies(of: name) ?? []
        }
        return graph.inputNames.filter(seen.contains)
    }

    /// The entry points' lines, and a count of the generic callers by outcome.
    private static func summarize(_ results: [RaceResult]) -> [String] {
        let named = results.filter { !$0.name.hasPrefix("caller-") }
        let generic = results.filter { $0.name.hasPrefix("caller-") }
        let served = generic.filter(\.succeeded).count
        var lines = named.map(\.line)
        lines.append("\(served) of \(generic.count) generic callers got the services")
        if let failure = generic.first(where: { !$0.succeeded }) { lines.append("first failure: " + failure.line) }
        return lines
    }
}
