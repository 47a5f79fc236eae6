import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// A value that is not `Sendable`: only a ``MainActorBound`` lets a service hold it.
private final class ViewModel {
    var title = "home"
}

/// A provider type whose `make` is isolated to the main actor, and says so.
private struct RouterProvider: ServiceProvider {
    let id = "router"
    var isolation: ServiceSpec.Isolation { .main }
    @MainActor func make(_ context: ProviderContext) async throws -> String {
        MainActor.preconditionIsolated("a main-actor provider type runs on the main actor")
        return "router"
    }
}

/// A provider type that says nothing of isolation, as a config's provider: its spec decides.
private struct PlainProvider: ServiceProvider {
    let id = "plain"
    func make(_ context: ProviderContext) async throws -> String {
        MainActor.preconditionIsolated("a plain provider of a main-actor spec runs on the main actor")
        return "plain"
    }
}

/// Main-actor services: where they run, how their nodes are batched, what the report and the
/// trace say, how they are cancelled and torn down (<doc:LaunchTiers>).
///
/// Swift Testing runs these tests off the main actor; `swift test` drains the main queue (on
/// Linux a Dispatch worker serves it), so main-actor work makes progress while a test waits.
@Suite("Main-actor services (Launch tiers and the main actor)")
struct MainActorTests {
    @Test("Main-actor providers run on the main actor, in every way they are declared; the report and trace say so")
    func mainActorProvidersRunOnTheMainActor() async throws {
        var plainClosure = ServiceSpec(ServiceKey<String>("plainClosure")) { _ in
            MainActor.preconditionIsolated("a closure of a main-actor spec runs on the main actor")
            return "closure"
        }
        plainClosure.isolation = .main
        var configured = ServiceSpec(name: "configured", provider: PlainProvider())
        configured.isolation = .main
        let trace = TraceRecorder()
        let container = try ServiceContainer(
            [
                ServiceSpec(mainActor: ServiceKey<MainActorBound<ViewModel>>("model")) { _ in
                    MainActor.preconditionIsolated("ServiceSpec(mainActor:) runs on the main actor")
                    return MainActorBound(ViewModel())
                },
                plainClosure, configured, ServiceSpec(name: "router", provider: RouterProvider()),
                ServiceSpec(ServiceKey<Int>("pool")) { _ in 1 },
            ], trace: [trace])
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        let model = try services[ServiceKey<MainActorBound<ViewModel>>("model")]
        let title = await MainActor.run { model.value.title }
        #expect(title == "home")

        let main = ["model", "plainClosure", "configured", "router"]
        for name in main { #expect(services.report.node(name)?.executor == .main, "\(name)") }
        #expect(services.report.node("pool")?.executor == .pool)
        #expect(services.report.mainActorBatches == 1, "the four ready main-actor nodes take one hop")
        #expect(services.report.mainActorTime > .zero)
        let started = trace.events.compactMap { event -> (String, BuildReport.Executor?)? in
            guard case .nodeStarted(let node, _, let executor, _) = event.kind else { return nil }
            return (node, executor)
        }
        #expect(Set(started.filter { $0.1 == .main }.map(\.0)) == Set(main))
        #expect(started.filter { $0.1 == .pool }.map(\.0) == ["pool"])
    }

    @Test("The other nodes keep running while a main-actor node blocks the main actor")
    func poolNodesRunWhileAMainActorNodeBlocks() async throws {
        // The main-actor node holds the main actor until a pool node lets it go: were the pool
        // node to wait for it (serialized behind it, or run on the main actor), it would time out.
        let released = BlockingGate()
        let log = OrderLog()
        let container = try ServiceContainer([
            ServiceSpec(mainActor: ServiceKey<Int>("blocker")) { _ in
                try released.wait(timeout: .seconds(30), "the pool node to run while the main actor is held")
                log.append("blocker")
                return 1
            },
            ServiceSpec(ServiceKey<Int>("worker")) { _ in
                log.append("worker")
                released.open()
                return 2
            },
            // Behind the blocker: were the nodes run one after another, it would go first.
            ServiceSpec(ServiceKey<Int>("after"), dependsOn: ["blocker"]) { _ in
                log.append("after")
                return 3
            },
        ])
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        #expect(try services[ServiceKey<Int>("blocker")] == 1)
        #expect(log.entries == ["worker", "blocker", "after"])
        #expect(services.report.node("blocker")?.executor == .main)
    }

    @Test("The ready main-actor nodes of a build take one hop to the main actor, the pool nodes beside them")
    func readyMainActorNodesTakeOneHop() async throws {
        // The task each ran in: a build keeps every task it made until it ends, so two tasks of
        // one build never share an identity.
        let tasks = Locked<[Int]>([])
        var specs = (1...6).map { index in
            ServiceSpec(mainActor: ServiceKey<Int>("main\(index)")) { _ in
                MainActor.preconditionIsolated()
                let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
                tasks.withLock { $0.append(task) }
                return index
            }
        }
        specs += (1...6).map { index in ServiceSpec(ServiceKey<Int>("pool\(index)")) { _ in index } }
        let container = try ServiceContainer(specs)
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        let ranIn = tasks.withLock { $0 }
        #expect(ranIn.count == 6)
        #expect(Set(ranIn).count == 1, "the six ran in one task: one hop")
        #expect(services.report.mainActorBatches == 1)
        #expect(services.report.nodes.count { $0.executor == .main } == 6)
    }

    @Test("A batch runs its main-actor nodes longest remaining path first, by the run times the container kept")
    func batchRunsTheCriticalPathFirst() async throws {
        let log = OrderLog()
        func main(_ name: String) -> ServiceSpec {
            ServiceSpec(mainActor: ServiceKey<Int>(name)) { _ in
                log.append(name)
                return 0
            }
        }
        func pool(_ name: String, after dependency: String) -> ServiceSpec {
            ServiceSpec(ServiceKey<Int>(name), dependsOn: [dependency]) { _ in 0 }
        }
        // By shape alone `deep` leads (two nodes after it); by the kept run times `slow` does
        // (10 ms after it, where `deep`'s tail took 2 µs).
        let container = try ServiceContainer([
            main("alone"), main("deep"), pool("deep1", after: "deep"), pool("deep2", after: "deep1"), main("slow"),
            pool("slowTail", after: "slow"),
        ])
        let graph = container.core.graph
        func slot(_ name: String) -> Int { graph.nodes.firstIndex { $0.name == name }! }
        container.core.runTimes.record(slot("slowTail"), took: .milliseconds(10))
        container.core.runTimes.record(slot("deep1"), took: .microseconds(1))
        container.core.runTimes.record(slot("deep2"), took: .microseconds(1))
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        #expect(log.entries == ["slow", "deep", "alone"])
        #expect(services.report.mainActorBatches == 1)
    }

    /// Holds the main actor until `release` opens (a job blocking it, as a long synchronous
    /// stretch of an app's main thread would); returns once it is held.
    private func holdMainActor(until release: BlockingGate) async throws -> Task<Void, any Error> {
        let holding = Gate()
        let holder = Task { @MainActor in
            holding.open()
            try release.wait(timeout: .seconds(60), "the test to free the main actor")
        }
        try await holding.wait(timeout: .seconds(30), "the main actor to be held")
        return holder
    }

    @Test("A request cancelled while its main-actor node waits for the main actor is answered at once")
    func requestCancelledWhileItsNodeWaitsForAHop() async throws {
        let runs = Counter()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(mainActor: ServiceKey<Int>("screen")) { _ in
                    runs.increment()
                    return 1
                }
            ], trace: [trace])
        let release = BlockingGate()
        let holder = try await holdMainActor(until: release)
        let request = Task { try await container.start(as: "screen") }
        // Joined and parked in the transition that started the build.
        try await trace.wait(for: "the build to start", timeout: .seconds(30)) { $0.count("build.started") == 1 }
        request.cancel()
        let answer = try await withTimeout(.seconds(30), "the cancelled caller to be answered") {
            await request.result
        }
        #expect(throws: CancellationError.self) { try answer.get() }
        #expect(runs.count == 0, "the node has not run: the main actor is still held")
        release.open()
        try await holder.value
        // The build went on without the caller: the next request finds the value built once.
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        #expect(try services[ServiceKey<Int>("screen")] == 1)
        #expect(runs.count == 1)
    }

    @Test("A reset while a main-actor node waits for the main actor cancels it before it runs")
    func resetCancelsANodeWaitingForAHop() async throws {
        let runs = Counter()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(mainActor: ServiceKey<Int>("screen")) { context in
                    runs.increment()
                    return context.generation
                }
            ], trace: [trace])
        let release = BlockingGate()
        let holder = try await holdMainActor(until: release)
        let first = Task { try await container.start(as: "first") }
        try await trace.wait(for: "the build to start", timeout: .seconds(30)) { $0.count("build.started") == 1 }
        let reset = Task { try await container.reset() }
        // The reset supersedes the caller in its first transition; its teardown waits for the node.
        let superseded = try await withTimeout(.seconds(30), "the caller to be superseded") { await first.result }
        #expect(throws: ContainerError.self) { try superseded.get() }
        release.open()
        try await holder.value
        _ = try await withTimeout(.seconds(30), "the reset") { try await reset.value }
        #expect(runs.count == 0, "the superseded build's main-actor node never ran")
        #expect(
            trace.events.contains {
                $0.generation == 1 && $0.kind == .nodeCancelled(node: "screen", phase: .beforeStart)
            })
        let services = try await withTimeout(.seconds(30), "the next build") { try await container.start() }
        #expect(try services[ServiceKey<Int>("screen")] == 2)
    }

    @Test("Main-actor values are torn down on the main actor, in reverse order, between the others")
    func mainActorValuesAreTornDownOnTheMainActor() async throws {
        let log = OrderLog()
        // `second`'s teardown is a plain closure: it runs where the teardown job calls it.
        var second = ServiceSpec(
            ServiceKey<Int>("second"), dependsOn: ["first"],
            tearDown: { _ in
                MainActor.preconditionIsolated("a main-actor value's teardown runs on the main actor")
                log.append("second")
            }
        ) { _ in 2 }
        second.isolation = .main
        let container = try ServiceContainer([
            ServiceSpec(
                mainActor: ServiceKey<Int>("first"),
                tearDown: { _ in
                    MainActor.preconditionIsolated()
                    log.append("first")
                }
            ) { _ in 1 },
            second,
            ServiceSpec(ServiceKey<Int>("pool"), dependsOn: ["second"], tearDown: { _ in log.append("pool") }) { _ in 3
            },
            ServiceSpec(
                mainActor: ServiceKey<Int>("last"), dependsOn: ["pool"],
                tearDown: { _ in
                    MainActor.preconditionIsolated()
                    log.append("last")
                }
            ) { _ in 4 },
        ])
        _ = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        let report = try await withTimeout(.seconds(30), "the shutdown") { try await container.shutdown() }
        #expect(log.entries == ["last", "pool", "second", "first"])
        #expect(report.tornDown.map(\.service) == ["last", "pool", "second", "first"])
    }
}
