import ContainerTesting
import Testing

@testable import Container

@Suite("One build, shared (Coordinator rules 1, 2, 9)")
struct SharedBuildTests {
    @Test("1,000 concurrent start() calls run each provider once and get the identical snapshot")
    func thousandCallers() async throws {
        let names = ["configuration", "database", "session"]
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log),
            countedSpec("database", dependsOn: ["configuration"], log: log),
            countedSpec("session", dependsOn: ["database"], log: log),
        ])
        let snapshots = try await withTimeout(.seconds(60), "1,000 callers") {
            try await withThrowingTaskGroup(of: AppServices.self) { group in
                for _ in 0..<1_000 { group.addTask { try await container.start() } }
                return try await group.reduce(into: [AppServices]()) { $0.append($1) }
            }
        }
        #expect(snapshots.count == 1_000)
        let first = try #require(snapshots.first)
        #expect(snapshots.allSatisfy { $0 === first })
        for name in names { #expect(log.count(of: name) == 1, "provider of \(name) ran \(log.count(of: name)) times") }
        #expect(container.current === first)
        #expect(try first[.made("session")].name == "session")
    }

    @Test("Joining is observed while a gate holds the build, then everyone gets one snapshot")
    func joinersObservedWhileHeld() async throws {
        let gate = Gate()
        let log = OrderLog()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [countedSpec("slow", log: log) { _ in await gate.wait() }], trace: [watcher])
        let callers = 25
        let results = Task {
            try await withThrowingTaskGroup(of: AppServices.self) { group in
                for index in 0..<callers { group.addTask { try await container.start(as: "c\(index)") } }
                return try await group.reduce(into: [AppServices]()) { $0.append($1) }
            }
        }
        try await watcher.wait(for: "\(callers) callers to join") { events in
            events.count { $0.kind.name == "caller.joined" } == callers
        }
        // While the gate is closed: one caller found the container idle, all others joined the running build.
        let joined = watcher.events.compactMap { event -> TraceEvent.CallerState? in
            if case .callerJoined(_, let state, _) = event.kind { return state }
            return nil
        }
        #expect(joined.count { $0 == .idle } == 1)
        #expect(joined.count { $0 == .running } == callers - 1)
        #expect(container.current == nil)
        #expect(watcher.count("snapshot.published") == 0)

        gate.open()
        let snapshots = try await withTimeout(.seconds(60), "the held build") { try await results.value }
        #expect(Set(snapshots.map(ObjectIdentifier.init)).count == 1)
        #expect(log.count(of: "slow") == 1)
        #expect(watcher.count("build.started") == 1)
        #expect(watcher.count("caller.resumed") == callers)
    }

    @Test("After success start() returns the stored snapshot without building")
    func readyIsReused() async throws {
        let log = OrderLog()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [countedSpec("a", log: log), countedSpec("b", dependsOn: ["a"], log: log)], trace: [watcher])
        #expect(container.current == nil)
        let first = try await container.start()
        let second = try await container.start()
        #expect(first === second)
        #expect(container.current === first)
        #expect(log.count(of: "a") == 1 && log.count(of: "b") == 1)
        #expect(watcher.count("build.started") == 1)
        let readyJoins = watcher.events.count {
            if case .callerJoined(_, .ready, _) = $0.kind { return true }
            return false
        }
        #expect(readyJoins == 1)
    }

    @Test("container.resolve reads the published snapshot synchronously, and says when nothing is ready")
    func synchronousResolve() async throws {
        let container = try ServiceContainer([ServiceSpec(ServiceKey<Int>("answer")) { _ in 42 }])
        let notReady = #expect(throws: ContainerError.self) { try container.resolve(ServiceKey<Int>("answer")) }
        #expect(notReady?.code == .notReady)
        _ = try await container.start()
        #expect(try container.resolve(ServiceKey<Int>("answer")) == 42)
        #expect(throws: AppServices.LookupError.self) { try container.resolve(ServiceKey<String>("answer")) }
        try await container.reset()
        #expect(throws: ContainerError.self) { try container.resolve(ServiceKey<Int>("answer")) }
    }

    @Test("A snapshot reads typed values and names what is wrong")
    func typedLookup() async throws {
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("answer")) { _ in 42 },
            ServiceSpec(ServiceKey<String>("greeting"), dependsOn: ["answer"]) {
                "hello \(try $0[ServiceKey<Int>("answer")])"
            },
        ])
        let services = try await container.start()
        #expect(try services[ServiceKey<String>("greeting")] == "hello 42")
        #expect(services.generation == 1)
        #expect(services.serviceNames == ["answer", "greeting"])

        let missing = #expect(throws: AppServices.LookupError.self) { try services[ServiceKey<Int>("answr")] }
        #expect(missing?.code == .notFound)
        #expect(missing?.message.contains("did you mean 'answer'?") == true)

        let mismatch = #expect(throws: AppServices.LookupError.self) { try services[ServiceKey<String>("answer")] }
        #expect(mismatch?.code == .typeMismatch)
        #expect(mismatch?.message.contains("holds a Int") == true)
    }

    @Test("A provider reading a dependency it did not declare gets a clear error")
    func undeclaredDependency() async throws {
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("b")) { try $0[ServiceKey<Int>("a")] + 1 },
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        guard case .failed(let failure)? = error?.report?.outcome(of: "b") else {
            Issue.record("b should have failed")
            return
        }
        #expect(failure.message.contains("service 'b' read 'a' without declaring it"))
        #expect(failure.message.contains(#"in code: dependsOn: ["a"]"#))
    }
}
