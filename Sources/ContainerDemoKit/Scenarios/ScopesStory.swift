import Container
import ContainerTesting
import Plugins

/// Scopes (Container's Scopes article), on `Configs/app.json`: two windows (`scene#window-1`, `scene#window-2`)
/// and a push notification (`push#notification-42`, about item `A-17`) arrive during the cold
/// start. Each is a scope instance whose build first joins the app build, so its services
/// (`sceneRouter`, `pushDetail`) are built only on the published app snapshot. Then the user
/// logs out: `reset(invalidating: ["session"])` supersedes exactly the instances whose scope uses
/// the session (or a service built on it); the others keep their snapshot.
enum ScopesStory {
    /// One scope instance of the story.
    struct Arrival: Sendable {
        let scope: String
        let id: String
        let parameters: ScopeParameters
        var label: String { "\(scope)#\(id)" }
    }

    /// The two windows and the push.
    static let arrivals = [
        Arrival(scope: "scene", id: "window-1", parameters: [.set(.windowID, to: "window-1")]),
        Arrival(scope: "scene", id: "window-2", parameters: [.set(.windowID, to: "window-2")]),
        Arrival(scope: "push", id: "notification-42", parameters: [.set(.itemID, to: "A-17")]),
    ]

    /// The service logout invalidates.
    static let loggedOut = "session"

    static func run(
        _ config: LoadedConfig, retries: Int?, interrupt: DemoInterrupt = DemoInterrupt(), live: (any TraceSink)? = nil
    ) async -> Result<ScenarioReport, ConfigProblem> {
        let missing = Set(arrivals.map(\.scope)).subtracting(config.graph.scopeNames).sorted()
        guard missing.isEmpty else {
            return .failure(
                ConfigProblem(
                    description:
                        "container-demo: the scopes story opens scene and push instances, but \(config.file) does "
                        + "not declare the scopes \(missing.joined(separator: ", ")); run it with Configs/app.json"))
        }
        let recorder = TraceRecorder()
        let policy = AttemptBudget.policy(config.policy, retries: retries)
        let container = ServiceContainer(
            graph: config.graph, policy: policy, trace: [recorder] + (live.map { [$0] } ?? []))
        interrupt.track(container)
        var instances: [ScopeInstance] = []
        for arrival in arrivals {
            do {
                instances.append(try container.openScope(arrival.scope, id: arrival.id, parameters: arrival.parameters))
            } catch {
                await interrupt.finish(container)
                return .failure(ConfigProblem(description: "container-demo: cannot open \(arrival.label): \(error)"))
            }
        }
        let redactor = config.graph.redactor
        let appEntryPoints = config.entryPoints.filter { $0.scope == nil }
        // Everyone lines up before anyone asks, so the windows and the push arrive together with
        // the app's entry points, while the cold start runs: none waits for task start-up.
        let line = StartingLine(count: arrivals.count + appEntryPoints.count)
        let callers = zip(arrivals, instances).map { caller(for: $0.1, config: config, name: $0.0.label, line: line) }
        let appCallers = appEntryPoints.map { entryPoint in
            let caller = RaceCaller.entryPoint(entryPoint)
            return RaceCaller(name: caller.name) { container, instance in
                await line.lineUp()
                return try await caller.call(container, instance)
            }
        }

        var narrative = [
            "1. cold start: the windows and the push arrive with \(appCallers.map(\.name).joined(separator: ", ")):"
        ]
        async let race = CallerRace.run(callers + appCallers, on: container, retryAfter: policy.retryAfter)
        await line.start()
        let first = await race
        narrative += first.map { "   " + redactor.redact($0.line) }
        narrative.append(
            "   the instances' builds found the app build: " + found(recorder.events).joined(separator: ", "))
        let held = instances.map(\.current)
        let appBefore = container.current

        narrative.append("2. the user logs out: reset(invalidating: [\"\(loggedOut)\"])")
        var reset: ServiceContainer.ResetReport?
        do {
            reset = try await container.reset(invalidating: [loggedOut])
        } catch {
            narrative.append("   the reset was refused: \(error.message)")
        }
        let retired = Set(reset?.invalidated ?? [])
        let superseded = instances.filter { $0.generation > 1 }.map(\.label)
        if let reset {
            narrative.append(
                "   generation \(reset.from) → \(reset.to); invalidated \(reset.invalidated), carried over "
                    + "\(reset.carriedOver)")
        }
        for arrival in arrivals {
            let readers = Self.readers(in: arrival.scope, config: config)
            let uses = readers.map { "\($0.name) (\($0.by.joined(separator: ", ")))" }
            let hit = readers.map(\.name).filter(retired.contains)
            narrative.append(
                "   \(arrival.label) uses \(uses.joined(separator: ", ")): "
                    + (superseded.contains(arrival.label)
                        ? "superseded (\(hit.joined(separator: ", ")) retired)" : "keeps its snapshot"))
        }

        narrative.append("3. the windows and the push are used again:")
        let second = await CallerRace.run(callers, on: container, retryAfter: policy.retryAfter)
        narrative += second.map { "   " + redactor.redact($0.line) }
        let appAfter = container.current
        let rebuiltOn = instances.map { $0.current?.appGeneration }
        let status = container.status
        // The instances stay open until the shutdown, which closes them before the app's values go.
        await interrupt.finish(container)

        let run = Run(
            config: config, instances: instances, held: held, first: first, second: second, reset: reset,
            superseded: superseded, rebuiltOn: rebuiltOn, events: recorder.events)
        var report = ScenarioReport(
            scenario: .scopes,
            title: "scopes: two windows and a push arrive during the cold start of \(config.file); then logout",
            graph: config.graph, events: run.events,
            reports: CallerRace.reports(first, published: appBefore)
                + (appAfter.map { $0 !== appBefore ? [$0.report] : [] } ?? []),
            narrative: narrative, checks: checks(run) + TraceInvariants.check(run.events, graph: config.graph),
            published: held.allSatisfy { $0 != nil }, isConfigRun: false)
        report.status = status
        report.streamed = live != nil
        return .success(report)
    }

    /// A caller that runs the config's entry point of the instance's scope in it, or only starts
    /// the instance when the config lists none.
    private static func caller(
        for instance: ScopeInstance, config: LoadedConfig, name: String, line: StartingLine
    ) -> RaceCaller {
        let entryPoint = config.entryPoints.first { $0.scope == instance.scope }
        return RaceCaller(name: name) { _, _ in
            await line.lineUp()
            guard let entryPoint else {
                let snapshot = try await instance.start(as: name)
                return "got \(instance.label)'s snapshot (generation \(snapshot.generation))"
            }
            return try await run(entryPoint, in: instance)
        }
    }

    private static func run<Entry: EntryPoint>(_ entryPoint: Entry, in instance: ScopeInstance) async throws
        -> String
    {
        String(describing: try await instance.run(entryPoint))
    }

    /// The app services the instances of `scope` use: those its services depend on and those its
    /// entry points read (Container's Scopes article). A reset retiring any of them supersedes the instance.
    static func uses(_ scope: String, config: LoadedConfig) -> Set<String> {
        Set(readers(in: scope, config: config).map(\.name))
    }

    /// Each app service the instances of `scope` use, sorted, with who reads it: the scope's
    /// services that depend on it and the scope's entry points that require it.
    static func readers(in scope: String, config: LoadedConfig) -> [(name: String, by: [String])] {
        let graph = config.graph
        var readers: [String: [String]] = [:]
        for service in graph.serviceNames where graph.lifetime(of: service)?.scope == scope {
            for name in graph.dependencies(of: service) ?? [] where graph.lifetime(of: name) == .app {
                readers[name, default: []].append(service)
            }
        }
        for entryPoint in config.entryPoints where entryPoint.scope == scope {
            for name in entryPoint.requirements.map(\.name) where graph.lifetime(of: name) == .app {
                readers[name, default: []].append("the \(entryPoint.id) entry point")
            }
        }
        return readers.keys.sorted().map { ($0, readers[$0] ?? []) }
    }

    /// What each instance's build found when it asked the app for its services (`idle`: it
    /// started the cold start; `running`: it joined it; `ready`: it came after it).
    static func found(_ events: [TraceEvent]) -> [String] {
        arrivals.map { arrival in
            let state = events.lazy.compactMap { event -> TraceEvent.CallerState? in
                guard event.scope == nil, event.generation == 1,
                    case .callerJoined(arrival.label, let state, _) = event.kind
                else { return nil }
                return state
            }.first
            return "\(arrival.label) \(state?.rawValue ?? "nothing")"
        }
    }

    /// Where the story's callers line up: each waits until all have arrived, then all go at once.
    final class StartingLine: Sendable {
        private let count: Int
        private let ready = Counter()
        private let everyoneReady = Gate()
        private let go = Gate()

        init(count: Int) { self.count = count }

        /// Waits until ``start()`` (at once after it).
        func lineUp() async {
            if ready.increment() == count { everyoneReady.open() }
            await go.wait()
        }

        /// Lets everyone go once all have lined up (or after 30 s, should one never come).
        func start() async {
            try? await everyoneReady.wait(timeout: .seconds(30))
            go.open()
        }
    }

    /// What one run of the story produced, for its checks.
    struct Run {
        let config: LoadedConfig
        let instances: [ScopeInstance]
        let held: [AppServices?]
        let first: [RaceResult]
        let second: [RaceResult]
        let reset: ServiceContainer.ResetReport?
        let superseded: [String]
        /// The app generation each instance's snapshot was built on after logout (before the shutdown closed them).
        let rebuiltOn: [Int?]
        let events: [TraceEvent]
    }
}
