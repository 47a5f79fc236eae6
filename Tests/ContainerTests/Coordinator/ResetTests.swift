import ContainerTesting
import Synchronization
import Testing

@testable import Container

@Suite("Generations, reset and teardown (Coordinator rules 7, 8; Teardown)")
struct ResetTests {
    @Test("reset() during a running build cancels it; its waiters are superseded; nothing old is published")
    func resetDuringBuild() async throws {
        let holding = Gate()
        let log = OrderLog()
        let watcher = TraceWatcher()
        let sawCancellation = Counter()
        let container = try ServiceContainer(
            [
                countedSpec("config", log: log),
                countedSpec("held", dependsOn: ["config"], log: log) { context in
                    guard context.generation == 1 else { return }
                    do { try await holding.cancellableWait() } catch {
                        sawCancellation.increment()
                        throw error
                    }
                },
            ], trace: [watcher])

        let waiters = (0..<3).map { _ in Task { try await container.start() } }
        try await watcher.wait(for: "held to start") { $0.contains { $0.kind.starts("held") } }
        try await watcher.wait(for: "3 callers to join") { $0.count { $0.kind.name == "caller.joined" } == 3 }

        let report = try await withTimeout(.seconds(60), "the reset") { try await container.reset() }
        #expect(report.from == 1 && report.to == 2)
        #expect(container.generation == 2)
        #expect(sawCancellation.count == 1)
        for waiter in waiters {
            let result = try await withTimeout(.seconds(60), "superseded waiters") { await waiter.result }
            #expect(throws: ContainerError.self) { try result.get() }
            if case .failure(let error as ContainerError) = result { #expect(error.code == .superseded) }
        }
        #expect(container.current == nil)
        #expect(!watcher.events.contains { $0.kind.name == "snapshot.published" })
        #expect(watcher.events.contains { $0.kind == .buildCancelled && $0.generation == 1 })

        let services = try await container.start()
        #expect(services.generation == 2)
        #expect(log.count(of: "config") == 2)
        #expect(log.count(of: "held") == 2)
        #expect(watcher.events.filter { $0.kind.name == "snapshot.published" }.map(\.generation) == [2])
    }

    @Test("A superseded build that still succeeds never publishes; its late values are torn down")
    func staleSuccessNeverPublishes() async throws {
        let gate = Gate()  // ignores cancellation: the old build finishes successfully after the reset
        let watcher = TraceWatcher()
        let torn = OrderLog()
        let container = try ServiceContainer(
            [
                ServiceSpec(.made("late"), tearDown: { torn.append("late g\($0.generation)") }) { context in
                    if context.generation == 1 { await gate.wait() }
                    return Made(name: "late", generation: context.generation)
                }
            ], trace: [watcher])
        let waiter = Task { try await container.start() }
        try await watcher.wait(for: "late to start") { $0.contains { $0.kind.starts("late") } }
        let reset = Task { try await container.reset() }
        try await watcher.wait(for: "the reset") { $0.contains { $0.kind.name == "generation.reset" } }
        let superseded = try await withTimeout(.seconds(60), "the superseded waiter") { await waiter.result }
        #expect(throws: ContainerError.self) { try superseded.get() }

        gate.open()  // generation 1's provider now returns a value, after the reset
        let report = try await withTimeout(.seconds(60), "the reset") { try await reset.value }
        #expect(report.tornDown.map(\.service) == ["late"])
        #expect(torn.entries == ["late g1"])
        #expect(container.current == nil)
        #expect(!watcher.events.contains { $0.kind.name == "snapshot.published" })
        let services = try await container.start()
        #expect(services.generation == 2)
        #expect(try services[.made("late")].generation == 2)
    }

    @Test("Old snapshots stay valid after reset; the new generation is a new object")
    func oldSnapshotStaysValid() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([countedSpec("a", log: log)])
        let old = try await container.start()
        try await container.reset()
        #expect(container.current == nil)
        #expect(try old[.made("a")].generation == 1)
        let new = try await container.start()
        #expect(new !== old)
        #expect(try new[.made("a")].generation == 2)
        #expect(old.generation == 1 && new.generation == 2)
    }

    @Test("Teardown runs in reverse dependency order, once per value, after the build stopped")
    func teardownOrder() async throws {
        let order = OrderLog()
        let log = OrderLog()
        @Sendable func tearDown(_ value: Made) async throws { order.append(value.name) }
        let container = try ServiceContainer([
            countedSpec("session", dependsOn: ["database"], log: log, tearDown: tearDown),
            countedSpec("configuration", log: log, tearDown: tearDown),
            countedSpec("database", dependsOn: ["configuration"], log: log, tearDown: tearDown),
            countedSpec("cache", dependsOn: ["configuration"], log: log),
        ])
        _ = try await container.start()
        let report = try await container.reset()
        #expect(report.tornDown.map(\.service) == order.entries)
        #expect(order.entries.count == 3)
        let index = { (name: String) in order.entries.firstIndex(of: name)! }
        #expect(index("session") < index("database"))
        #expect(index("database") < index("configuration"))
        #expect(report.failures.isEmpty)

        _ = try await container.start()
        try await container.shutdown()
        #expect(order.entries.count == 6)
        let shutdownError = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(shutdownError?.code == .shutDown)
    }

    @Test("Values a failed attempt kept for its retry are torn down on reset; teardown errors are reported")
    func teardownAfterTransientAndErrors() async throws {
        let order = OrderLog()
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec(
                "kept", log: log,
                tearDown: { value in
                    order.append(value.name)
                    throw TestError("close failed")
                }),
            countedSpec("fails", dependsOn: ["kept"], log: log) { _ in throw TestError() },
        ])
        await #expect(throws: ContainerError.self) { try await container.start() }
        await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(log.count(of: "kept") == 1)
        let report = try await container.reset()
        #expect(order.entries == ["kept"])
        #expect(report.failures.map(\.service) == ["kept"])
        #expect(report.failures.first?.error == "close failed")
    }

    @Test("A permanent failure tears its values down at once")
    func permanentFailureTearsDown() async throws {
        let order = OrderLog()
        let log = OrderLog()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("base", log: log, tearDown: { order.append($0.name) }),
                countedSpec("bad", dependsOn: ["base"], log: log) { _ in throw Classified(failureKind: .permanent) },
            ], trace: [watcher])
        await #expect(throws: ContainerError.self) { try await container.start() }
        try await watcher.wait(for: "base torn down") {
            $0.contains { $0.kind == .nodeTornDown(node: "base", error: nil) }
        }
        #expect(order.entries == ["base"])
        // A reset afterwards tears nothing down again; its report is the first to list that
        // teardown (so an error in it would not be lost), and the next one does not repeat it.
        let report = try await container.reset()
        #expect(report.tornDown.map(\.service) == ["base"])
        #expect(order.entries == ["base"])
        let next = try await container.reset()
        #expect(next.tornDown.isEmpty)
    }

    @Test("reset(invalidating:) rebuilds only the named services and their dependents")
    func incrementalReset() async throws {
        let order = OrderLog()
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log, tearDown: { order.append($0.name) }),
            countedSpec("database", dependsOn: ["configuration"], log: log, tearDown: { order.append($0.name) }),
            countedSpec("session", dependsOn: ["database"], log: log, tearDown: { order.append($0.name) }),
            countedSpec("feed", dependsOn: ["session"], log: log, tearDown: { order.append($0.name) }),
        ])
        let first = try await container.start()
        let report = try await container.reset(invalidating: ["session"])
        #expect(report.invalidated == ["session", "feed"])
        #expect(report.carriedOver == ["configuration", "database"])
        #expect(order.entries == ["feed", "session"])

        let second = try await container.start()
        #expect(second.generation == 2)
        #expect(log.count(of: "database") == 1, "logout must not reopen the database")
        #expect(log.count(of: "session") == 2)
        #expect(try second[.made("database")] === first[.made("database")])
        #expect(try second[.made("session")] !== first[.made("session")])
        #expect(second.report.outcome(of: "database") == .reused)

        let unknown = await #expect(throws: ContainerError.self) { try await container.reset(invalidating: ["sesion"]) }
        #expect(unknown?.code == .unknownService)
        #expect(unknown?.message.contains("did you mean 'session'?") == true)
        #expect(container.generation == 2)
    }

    @Test("A new generation's build starts only after the old build stopped and its values were torn down")
    func noOverlap() async throws {
        let release = Gate()
        let order = OrderLog()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(
                    .made("slowTeardown"),
                    tearDown: { _ in
                        order.append("teardown started")
                        await release.wait()
                        order.append("teardown finished")
                    }
                ) { context in
                    order.append("build g\(context.generation)")
                    return Made(name: "slowTeardown", generation: context.generation)
                }
            ], trace: [watcher])
        _ = try await container.start()
        let reset = Task { try await container.reset() }
        try await watcher.wait(for: "the reset") { $0.contains { $0.kind.name == "generation.reset" } }
        let next = Task { try await container.start() }
        try await watcher.wait(for: "the new caller to join") { $0.count { $0.kind.name == "caller.joined" } == 2 }
        #expect(!order.entries.contains("build g2"))
        release.open()
        _ = try await withTimeout(.seconds(60), "the reset") { try await reset.value }
        let services = try await withTimeout(.seconds(60), "generation 2") { try await next.value }
        #expect(services.generation == 2)
        #expect(order.entries == ["build g1", "teardown started", "teardown finished", "build g2"])
    }

    @Test("reset(invalidating:) of a scoped service says where it lives, not that it is unknown")
    func resetOfScopedService() async throws {
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(ServiceKey<Int>("session")) { _ in 1 },
                    ServiceSpec(ServiceKey<Int>("accountStore"), dependsOn: ["session"], lifetime: .scope("account")) {
                        _ in 2
                    },
                ], scopes: ["account"]))
        _ = try await container.start()
        let error = await #expect(throws: ContainerError.self) {
            try await container.reset(invalidating: ["accountStore"])
        }
        #expect(error?.code == .unknownService)
        #expect(error?.message.contains("services not built here 'accountStore'") == true)
        #expect(error?.message.contains("instances of scope 'account'") == true)
        let typo = await #expect(throws: ContainerError.self) { try await container.reset(invalidating: ["sesion"]) }
        #expect(typo?.message.contains("unknown services 'sesion' (did you mean 'session'?)") == true)
    }
}
