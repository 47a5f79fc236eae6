import Container
import ContainerTesting
import Foundation
import Plugins

/// Launch in tiers (Container's "Demand-driven start-up" and "Launch tiers and the main actor"
/// articles), on `Configs/launch.json`: a social app of 24 services. Before `didFinishLaunching`
/// returns, `resolveNow` builds the synchronous tier on the main thread; launch builds only the
/// eager services (three of them on the main actor) while a push that arrived at cold start gets
/// its own closure; after the first frame `startDeferred()` builds the rest of the start-up, and
/// an optional analytics tracker failing fails nobody; push registration waits for the device
/// token, which the app supplies later; what nobody asked for is never built.
enum LaunchStory {
    /// The story's config.
    static let path = "Configs/launch.json"
    /// What the cold-start push opens, and what needs the device token.
    static let pushDetail = "pushDetail"
    static let registration = "pushRegistration"
    static let deviceToken = "deviceToken"

    /// A key of the config's simulated services.
    static func key(_ name: String) -> AnyServiceKey { ServiceKey<SimulatedValue>(name).erased }

    static func run(
        _ config: LoadedConfig, retries: Int?, interrupt: DemoInterrupt = DemoInterrupt(), live: (any TraceSink)? = nil
    ) async -> Result<ScenarioReport, ConfigProblem> {
        let graph = config.graph
        let needed = [pushDetail, registration, deviceToken] + synchronousTier
        var missing = needed.filter { graph.providerID(of: $0) == nil }
        if !graph.inputNames.contains(deviceToken) && !missing.contains(deviceToken) { missing.append(deviceToken) }
        missing += synchronousTier.filter { !missing.contains($0) && graph.isSynchronous($0) != true }
        guard missing.isEmpty else {
            return .failure(
                ConfigProblem(
                    description: "container-demo: the launch story needs the services \(pushDetail), "
                        + "\(registration), the input \(deviceToken) and the synchronous "
                        + "\(synchronousTier.joined(separator: " and ")); \(config.file) lacks "
                        + "\(missing.joined(separator: ", ")) (or has it asynchronous); run it with \(path)"))
        }
        let watcher = TraceWatcher()
        let container = ServiceContainer(
            graph: graph, policy: AttemptBudget.policy(config.policy, retries: retries),
            trace: [watcher] + (live.map { [$0] } ?? []))
        interrupt.track(container)
        var run = Run(total: graph.count)

        // 0. didFinishLaunching, on the main thread: the synchronous tier, before it returns.
        run.didFinish = await MainActor.run { didFinishLaunching(container) }

        // 1. Launch and a push that arrived at cold start, together.
        async let launched = outcome { try await container.start(as: "launch") }
        async let pushed = outcome { try await container.start(needs: [key(pushDetail)], as: "push#cold-start") }
        run.launch = await launched
        run.push = await pushed
        run.launchStarted = Set(watcher.events.nodes("node.started"))

        // 2. The first frame is on screen: the rest of the start-up, at background priority.
        run.deferred = await outcome { try await container.startDeferred(as: "after-first-frame") }

        // 3. Push registration is asked for before the system gives the device token.
        let registering = Task { await outcome { try await container.start(needs: [key(registration)], as: "push") } }
        do {
            try await watcher.wait(for: "the device token's node to wait", timeout: .seconds(30)) { events in
                events.contains { $0.kind.name == "node.started" && $0.kind.node == deviceToken }
            }
            run.waitingBeforeSupply = container.status.service(deviceToken)?.state == .waitingForInput
            run.notSuppliedBeforeSupply = container.status.inputsNotSupplied
            try await container.supply(ServiceKey<String>(deviceToken), "a1b2c3d4")
        } catch {
            registering.cancel()
            run.supplyError = "\(error)"
        }
        run.registration = await registering.value
        run.status = container.status
        await interrupt.finish(container)
        run.events = watcher.events

        var report = ScenarioReport(
            scenario: .launch,
            title:
                "launch: start-up in tiers on \(config.file) (synchronous, main actor, eager, a cold-start push, "
                + "deferred, optional, an input)",
            graph: graph, events: run.events,
            reports: distinctReports(
                run.didFinish.reports.map { .success($0) }
                    + [run.launch, run.push, run.deferred, run.registration].map { $0.map(\.report) }),
            narrative: narrative(run, graph: graph),
            checks: checks(run, graph: graph) + TraceInvariants.check(run.events, graph: graph),
            published: (try? run.launch.get()) != nil, isConfigRun: false)
        report.status = run.status
        report.streamed = live != nil
        return .success(report)
    }

    /// What one run saw.
    struct Run {
        let total: Int
        var didFinish = DidFinishLaunching()
        var launch: Result<AppServices, any Error> = .failure(CancellationError())
        var push: Result<AppServices, any Error> = .failure(CancellationError())
        var deferred: Result<AppServices, any Error> = .failure(CancellationError())
        var registration: Result<AppServices, any Error> = .failure(CancellationError())
        /// The nodes that had started when launch and the push were answered.
        var launchStarted: Set<String> = []
        var waitingBeforeSupply = false
        var notSuppliedBeforeSupply: [String] = []
        var supplyError: String?
        var status: ContainerStatus?
        var events: [TraceEvent] = []
    }

    /// The build reports of the snapshots the requests got, each build once, by attempt.
    private static func distinctReports(_ results: [Result<BuildReport, any Error>]) -> [BuildReport] {
        var seen = Set<Int>()
        return results.compactMap { try? $0.get() }.filter { seen.insert($0.attempt).inserted }
            .sorted { $0.attempt < $1.attempt }
    }

    private static func outcome(_ body: () async throws -> AppServices) async -> Result<AppServices, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func names(_ result: Result<AppServices, any Error>) -> [String] {
        (try? result.get().serviceNames) ?? []
    }

    private static func describe(_ result: Result<AppServices, any Error>) -> String {
        switch result {
        case .success(let services):
            "\(services.serviceNames.count) services: \(services.serviceNames.joined(separator: ", "))"
        case .failure(let error): "failed: \(error)"
        }
    }

    static func narrative(_ run: Run, graph: ServiceGraph) -> [String] {
        let deferred = (try? run.deferred.get())
        let absent = graph.serviceNames.compactMap { name in deferred?.absence(of: name).map { "\(name) (\($0))" } }
        let unbuilt = run.status?.services.filter { $0.state == .notRequested }.map(\.name) ?? []
        return [
            synchronousNarrative(run, graph: graph),
            "2. launch: start() builds the eager services only, reusing the synchronous tier; a push that "
                + "arrived at cold start asks for \(pushDetail) alone (\(run.launchStarted.count) of \(run.total) "
                + "services ran for the two)",
            "   launch → \(describe(run.launch))",
            mainActorNarrative(run),
            "   push#cold-start → \(describe(run.push))",
            "3. the first frame is on screen: startDeferred() builds the rest of the start-up at background priority",
            "   after-first-frame → \(describe(run.deferred))",
            "   optional and not built, failing nobody: \(absent.isEmpty ? "none" : absent.joined(separator: "; "))",
            "4. push registration is asked for before the system gives the device token: it waits "
                + "(status: \(deviceToken) \(run.waitingBeforeSupply ? "waitingForInput" : "not waiting"), "
                + "inputs not supplied: \(run.notSuppliedBeforeSupply))",
            "   supply(.\(deviceToken), …) → push → \(run.supplyError.map { "failed: \($0)" } ?? describe(run.registration))",
            "5. never asked for, never built: \(unbuilt.isEmpty ? "none" : unbuilt.joined(separator: ", "))",
        ]
    }

    static func checks(_ run: Run, graph: ServiceGraph) -> [CheckResult] {
        let eager = Set(
            graph.serviceNames.filter { graph.startPolicy(of: $0) == .eager && !graph.inputNames.contains($0) })
        let launched = Set(names(run.launch))
        let push = Set(names(run.push))
        let pushClosure = closure(of: [pushDetail], in: graph)
        let deferred = try? run.deferred.get()
        let optionalAbsent = graph.serviceNames.filter {
            graph.isOptional($0) == true && deferred?.contains($0) == false
        }
        let starts = run.events.nodes("node.started")
        let repeated = Dictionary(grouping: starts, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        let lazy = graph.serviceNames.filter { graph.startPolicy(of: $0) == .lazy }
        let neverAsked = Set(lazy).subtracting(closure(of: [pushDetail, registration], in: graph))
        return [
            synchronousCheck(run, graph: graph),
            CheckResult(
                "launch builds exactly the eager services (and what they need)",
                // The push's node may end before launch's last main-actor node: then one snapshot
                // answers both, and launch's holds pushDetail too, never anything else.
                closure(of: Array(eager), in: graph).isSubset(of: launched)
                    && launched.isSubset(of: closure(of: Array(eager), in: graph).union(pushClosure))
                    && run.launchStarted.isSubset(of: eager.union(pushClosure)),
                detail: "launch holds \(launched.sorted()); started by then \(run.launchStarted.sorted())"),
            CheckResult(
                "the cold-start push gets its own closure, without the deferred services",
                pushClosure.isSubset(of: push) && !push.contains("database"),
                detail: "push holds \(push.sorted())"),
            CheckResult(
                "startDeferred() succeeds although an optional tracker fails, and says why it is absent",
                deferred != nil && !optionalAbsent.isEmpty
                    && optionalAbsent.allSatisfy { deferred?.absence(of: $0) != nil },
                detail: "\(describe(run.deferred)); optional and absent: \(optionalAbsent)"),
            CheckResult(
                "push registration waits for the device token and is built once it is supplied",
                run.waitingBeforeSupply && run.notSuppliedBeforeSupply == [deviceToken]
                    && names(run.registration).contains(registration) && run.status?.inputsNotSupplied == [],
                detail: "waiting: \(run.waitingBeforeSupply), not supplied: \(run.notSuppliedBeforeSupply), "
                    + "\(describe(run.registration))"),
            CheckResult(
                "every provider runs at most once", repeated.isEmpty, detail: "started more than once: \(repeated)"),
            CheckResult(
                "lazy services nobody asked for are never built",
                neverAsked.allSatisfy { !starts.contains($0) },
                detail: "started: \(neverAsked.filter { starts.contains($0) }.sorted())"),
            mainActorCheck(run, graph: graph),
        ]
    }

    /// `roots` and everything they depend on (group dependencies by their members).
    static func closure(of roots: [String], in graph: ServiceGraph) -> Set<String> {
        var seen = Set<String>()
        var stack = roots
        while let name = stack.popLast() {
            guard seen.insert(name).inserted else { continue }
            stack += graph.dependencies(of: name) ?? []
        }
        return seen
    }
}
