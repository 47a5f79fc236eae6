import ContainerTesting
import TestSupport
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let database = ServiceKey("database")
    fileprivate static let session = ServiceKey("session")
    fileprivate static let detail = ServiceKey("detail")
}

/// One test per lifecycle race an outside stress run found where shutdown, reload and reset meet
/// scope instances. Each was reproduced on the code before the fix (the first three, five and
/// six deterministically with the gates below, the fourth in about one round in twenty); the new
/// shape makes each impossible: one transition of the app retires, supersedes and schedules the
/// teardowns, and a scoped build leases the app values it runs on.
@Suite("Reliability: lifecycle races of shutdown, reload and reset against scope instances")
struct LifecycleRaceTests {
    /// App `database` and `session`; `detail` in scope `push`, reading `detailReads` (two graphs
    /// that read different ones differ in the scope only), whose build runs `detail` and whose
    /// teardown runs `tearDown` (and throws when `fails`).
    static func graph(
        log: OrderLog, detailReads: String = "database", detail: @escaping @Sendable () async throws -> Void = {},
        tearDown: @escaping @Sendable () async -> Void = {}, fails: Bool = false
    ) throws -> ServiceGraph {
        try ServiceGraph(
            [
                ServiceSpec(.database, tearDown: { _ in log.append("database torn down") }) { _ in "db" },
                ServiceSpec(.session) { _ in "ada" },
                ServiceSpec(
                    .detail, dependsOn: [detailReads], lifetime: .scope("push"),
                    tearDown: { _ in
                        log.append("detail torn down")
                        await tearDown()
                        if fails { throw TestError("detail's teardown failed") }
                    }
                ) { context in
                    try await detail()
                    log.append("detail built")
                    return "detail on \(try context[ServiceKey<String>(detailReads)])"
                },
            ], scopes: ["push"])
    }

    @Test("1: a shutdown refuses start, reset and reload from its first step, while instances still close")
    func shutdownRefusesAtOnce() async throws {
        let log = OrderLog()
        let closing = Gate()
        let release = Gate()
        let graph = try Self.graph(
            log: log,
            tearDown: {
                closing.open()
                await release.wait()
            })
        let container = ServiceContainer(graph: graph)
        let push = try container.openScope("push", id: "n-1")
        _ = try await withTimeout { try await push.start() }
        let shutdown = Task { try await container.shutdown() }
        try await closing.wait(timeout: .seconds(60), "the instance's teardown to start")
        // The instance is still closing (its teardown is held): the app refuses everything already.
        await #expect(throws: ContainerError.self) { _ = try await container.start() }
        let reset = await #expect(throws: ContainerError.self) { try await container.reset() }
        #expect(reset?.code == .shutDown)
        let reload = await #expect(throws: ContainerError.self) { try await container.reload(graph) }
        #expect(reload?.code == .shutDown)
        #expect(container.current == nil)
        #expect(throws: ContainerError.self) { _ = try container.openScope("push", id: "n-2") }
        release.open()
        let report = try await withTimeout { try await shutdown.value }
        #expect(report.tornDown.map(\.service) == ["detail", "database"], "scoped values first")
    }

    @Test("2: a second shutdown is refused at once; the first reports every scoped teardown, failures included")
    func concurrentShutdownsLoseNothing() async throws {
        let log = OrderLog()
        let closing = Gate()
        let release = Gate()
        let graph = try Self.graph(
            log: log,
            tearDown: {
                closing.open()
                await release.wait()
            }, fails: true)
        let container = ServiceContainer(graph: graph)
        let push = try container.openScope("push", id: "n-1")
        _ = try await withTimeout { try await push.start() }
        let first = Task { try await container.shutdown() }
        try await closing.wait(timeout: .seconds(60), "the instance's teardown to start")
        // Before the held teardown ends: the second shutdown does not wait for it.
        let second = try await withTimeout(.seconds(60), "the second shutdown, refused at once") {
            await Task { try await container.shutdown() }.result
        }
        guard case .failure(let error as ContainerError) = second else { return fail("refused, got \(second)") }
        #expect(error.code == .shutDown)
        release.open()
        let report = try await withTimeout { try await first.value }
        #expect(report.tornDown.map(\.service) == ["detail", "database"])
        #expect(report.failures.map(\.service) == ["detail"], "the failed scoped teardown is reported")
        #expect(container.status.unreportedTeardowns.isEmpty)
    }

    @Test("3: a build drained by shutdown(deadline:) on its last allowed attempt answers attemptsExhausted, traced")
    func drainedLastAttempt() async throws {
        let started = Gate()
        let fail = Gate()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(.database) { _ in
                    started.open()
                    await fail.wait()
                    throw Classified(failureKind: .transient)
                }
            ], policy: BuildPolicy(maxAttempts: 1), trace: [watcher])
        let caller = Task { try await container.start() }
        try await started.wait(timeout: .seconds(60), "the build to start")
        let shutdown = Task { try await container.shutdown(deadline: .now + .seconds(600)) }
        // Draining: `container.shutdown` is traced once the build it lets finish has ended.
        try await withTimeout(.seconds(60), "the shutdown to begin") {
            while container.status.state != .shuttingDown { await Task.yield() }
        }
        fail.open()
        let result = try await withTimeout { await caller.result }
        guard case .failure(let error as ContainerError) = result else { Issue.record("a failure: \(result)"); return }
        #expect(error.code == .attemptsExhausted, "its generation has no attempt left")
        _ = try await withTimeout { try await shutdown.value }
        #expect(
            watcher.events.contains {
                $0.kind == .buildFailed(failure: .transient, roots: ["database"], exhausted: true)
            })
    }

    @Test("4: openScope racing a reload that removes the scope: no instance of the removed scope stays open")
    func openScopeRacesReload() async throws {
        let log = OrderLog()
        let withScope = try Self.graph(log: log)
        let withoutScope = try ServiceGraph([
            ServiceSpec(.database) { _ in "db" }, ServiceSpec(.session) { _ in "ada" },
        ])
        for round in 0..<300 {
            let container = ServiceContainer(graph: withScope)
            _ = try await withTimeout { try await container.start() }
            let reload = Task { try await container.reload(withoutScope) }
            var opened: [ScopeInstance] = []
            for id in 0..<8 {
                guard let instance = try? container.openScope("push", id: "\(round)-\(id)") else { continue }
                opened.append(instance)
                await Task.yield()
            }
            let report = try await withTimeout { try await reload.value }
            #expect(container.openScopes.isEmpty, "round \(round): \(container.openScopes) left open")
            for instance in opened {
                #expect(report.closedScopes.contains(instance.label), "round \(round): \(instance.label) not closed")
                await #expect(throws: ContainerError.self) { _ = try await instance.start() }
            }
            try await container.shutdown()
        }
    }

    @Test(
        "5: a reset after a reload changed the scope waits for the instance's old build before tearing down its value")
    func reloadThenResetWaitsForTheOldBuild() async throws {
        let log = OrderLog()
        let building = Gate()
        let finish = Gate()
        let v1 = try Self.graph(
            log: log,
            detail: {
                building.open()
                await finish.wait()
            })
        // Version 2: the detail reads the session instead of the database.
        let v2 = try ServiceGraph(
            [
                ServiceSpec(.database, tearDown: { _ in log.append("database torn down") }) { _ in "db" },
                ServiceSpec(.session) { _ in "ada" },
                ServiceSpec(.detail, dependsOn: .session, lifetime: .scope("push")) { _ in "detail v2" },
            ], scopes: ["push"])
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: v1, trace: [watcher])
        let push = try container.openScope("push", id: "n-1")
        let scopedCaller = Task { try await push.start() }
        try await building.wait(timeout: .seconds(60), "the scoped build to run on the database")
        // The reload waits for the instance's old build; meanwhile the instance uses the session.
        let reload = Task { try await container.reload(v2) }
        try await watcher.wait(for: "the instance's reload") { events in
            events.contains { $0.scope == "push#n-1" && $0.kind.name == "generation.reset" }
        }
        // The old scoped build still runs on the database: a reset retiring it must wait for it.
        let reset = Task { try await container.reset(invalidating: ["database"]) }
        try await watcher.wait(for: "the reset") { events in
            events.contains { $0.scope == nil && $0.kind.name == "generation.reset" && $0.generation == 3 }
        }
        let early = log.entries.contains("database torn down")
        finish.open()
        _ = try await withTimeout { try await reset.value }
        #expect(try await withTimeout { try await reload.value }.reloadedScopes == ["push#n-1"])
        _ = await scopedCaller.result
        #expect(!early, "the database was torn down while the scoped build ran on it")
        let order = log.entries
        let built = order.firstIndex(of: "detail built")
        let tornDown = order.firstIndex(of: "database torn down")
        #expect(built != nil && tornDown != nil && built! < tornDown!, "\(order)")
        try await container.shutdown()
    }

    @Test("6: retiring an app value and superseding the instances built on it is one step: scoped first, reported")
    func retireAndSupersedeAtOnce() async throws {
        for round in 0..<200 {
            let log = OrderLog()
            let slowTeardown = Gate()
            let graph = try ServiceGraph(
                [
                    ServiceSpec(.database, tearDown: { _ in log.append("database torn down") }) { _ in "db" },
                    ServiceSpec(.session, tearDown: { _ in await slowTeardown.wait() }) { _ in "ada" },
                    ServiceSpec(
                        .detail, dependsOn: .database, lifetime: .scope("push"),
                        tearDown: { _ in log.append("detail torn down") }
                    ) { _ in "detail" },
                ], scopes: ["push"])
            let container = ServiceContainer(graph: graph)
            let push = try container.openScope("push", id: "n-1")
            _ = try await withTimeout { try await push.start() }
            // A teardown job (the session's) ends at a moment of its own while a reset retires
            // the database the instance was built on.
            let first = Task { try await container.reset(invalidating: ["session"]) }
            let opener = Task {
                for _ in 0..<(round % 7) { await Task.yield() }
                slowTeardown.open()
            }
            let second = try await withTimeout { try await container.reset(invalidating: ["database"]) }
            _ = try await withTimeout { try await first.value }
            await opener.value
            let order = log.entries
            #expect(
                order.firstIndex(of: "detail torn down").map { $0 < order.firstIndex(of: "database torn down")! }
                    == true,
                "round \(round): \(order)")
            #expect(
                second.tornDown.map(\.service).contains("detail"), "round \(round): the scoped teardown is reported")
            try await container.shutdown()
        }
    }
}
