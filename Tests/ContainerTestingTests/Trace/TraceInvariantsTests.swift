import Container
import ContainerTesting
import TestSupport
import Testing

@Suite("Trace invariants: hold on real runs, and each catches the rule it checks")
struct TraceInvariantsTests {
    /// `database <- session <- detail`, `detail` living in scope `push`.
    let graph: ServiceGraph

    init() throws {
        graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("database")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("session"), dependsOn: ["database"]) { _ in 2 },
                ServiceSpec(ServiceKey<Int>("detail"), dependsOn: ["session"], lifetime: .scope("push")) { _ in 3 },
            ], scopes: ["push"])
    }

    /// The names of the rules that fail on `events`.
    func failing(_ events: [TraceEvent]) -> [String] {
        TraceInvariants.check(events, graph: graph).filter { !$0.passed }.map(\.claim)
    }

    @Test("a real run with a failure, a retry, a reset, a scope instance and a shutdown keeps every rule")
    func realRun() async throws {
        let runs = Counter()
        let trace = TraceWatcher()
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("database")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("session"), dependsOn: ["database"], defaultFailure: .transient) { _ in
                    if runs.increment() == 1 { throw FakeFailure(.transient, "offline") }
                    return 2
                },
                ServiceSpec(ServiceKey<Int>("detail"), dependsOn: ["session"], lifetime: .scope("push")) { _ in 3 },
            ], scopes: ["push"])
        let container = ServiceContainer(graph: graph, trace: [trace])
        await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start(as: "launch") } }
        _ = try await withTimeout { try await container.start(as: "launch") }
        _ = try await withTimeout { try await container.reset(invalidating: ["session"]) }
        let scope = try container.openScope("push", id: "7")
        _ = try await withTimeout { try await scope.start(as: "push") }
        _ = try await withTimeout { try await container.shutdown() }
        let results = TraceInvariants.check(trace.events, graph: container.graph)
        #expect(results.count == 9)
        #expect(results.filter { !$0.passed }.isEmpty, "\(results)")
        try trace.events.expect(TraceInvariants.expectations(for: container.graph))
        #expect(trace.events.contains { $0.scope == "push#7" && $0.kind.node == "detail" })
        // The rule on build.added had something to check: every build of the run wrote it.
        let builds = trace.events.filter { $0.kind == .buildStarted }.count
        let adding = Set(trace.events.filter { $0.kind.name == "build.added" }.map { "\($0.scope ?? "") \($0.build)" })
        #expect(builds == 4 && adding.count == builds)
    }

    @Test("a node added twice, a node run without being added, and an added node that never ended")
    func added() {
        var script = TraceScript()
        script.add(.buildStarted)
        script.add(.buildAdded(nodes: ["database", "session"], caller: "launch"))
        script.add(.buildAdded(nodes: ["session"], caller: "scene"))
        script.add(.nodeStarted(node: "database"))
        script.add(.nodeSucceeded(node: "database", duration: .zero))
        script.add(.nodeStarted(node: "cache"))
        script.add(.nodeReused(node: "config"))
        let detail = TraceInvariants.nodesAddedBeforeTheyRun.check(script.events).detail ?? ""
        #expect(detail.contains("session added twice in g1 a1 (again for scene)"))
        #expect(detail.contains("node.started of cache never added to g1 a1"))
        #expect(detail.contains("added but never ended in g1 a1: session"))
        #expect(!detail.contains("config"), "a reused value is not a member")
        // A trace without build.added (written before it existed) has nothing to check.
        var older = TraceScript()
        older.add(.buildStarted)
        older.add(.nodeStarted(node: "cache"))
        #expect(TraceInvariants.nodesAddedBeforeTheyRun.check(older.events).passed)
    }

    @Test("two builds in one attempt")
    func twoBuilds() {
        var script = TraceScript()
        script.add(.buildStarted)
        script.add(.buildStarted)
        #expect(failing(script.events).contains("at most one build per attempt, however many callers"))
    }

    @Test("a node without an outcome, a node with two, and a node event outside a build")
    func outcomes() {
        var script = TraceScript()
        script.add(.buildStarted)
        script.add(.nodeStarted(node: "database"))
        script.add(.nodeSucceeded(node: "database", duration: .zero))
        script.add(.nodeReused(node: "database"))
        script.add(.nodeStarted(node: "cache"), g: 1, a: 2)
        let detail = TraceInvariants.oneOutcomePerNode(graph).check(script.events).detail ?? ""
        #expect(detail.contains("node.started of cache without a build in g1 a2"))
        #expect(detail.contains("database has 2 outcomes in g1 a1"))
        #expect(detail.contains("session has 0 outcomes in g1 a1"))
        #expect(!detail.contains("detail has"), "a scoped service is not the app build's to end")
    }

    @Test("a node started before its dependency had a value")
    func dependencyFirst() {
        var script = TraceScript()
        script.add(.nodeStarted(node: "database"))
        script.add(.nodeStarted(node: "session"))
        #expect(
            TraceInvariants.dependenciesFirst(graph).check(script.events).detail
                == "session started before database in g1 a1")
        // In a scope instance's build, the app services come with the instance: never built there.
        var scoped = TraceScript()
        scoped.add(.nodeStarted(node: "detail"), scope: "push#1")
        #expect(TraceInvariants.dependenciesFirst(graph).check(scoped.events).passed)
    }

    @Test("a caller never answered, and one answered twice")
    func callers() {
        var script = TraceScript()
        script.add(.callerJoined(caller: "launch", state: .idle))
        script.add(.callerJoined(caller: "scene", state: .running))
        script.add(.callerResumed(caller: "scene", result: .snapshot))
        script.add(.callerCancelled(caller: "scene"))
        #expect(
            TraceInvariants.everyCallerAnswered.check(script.events).detail
                == "scene answered more often than it asked; never answered: launch")
    }

    @Test("a caller that found the container ready before its generation published a snapshot")
    func readyBeforeSnapshot() {
        var script = TraceScript()
        script.add(.snapshotPublished(services: 2))
        script.add(.callerJoined(caller: "launch", state: .ready))
        script.add(.generationReset(TraceEvent.GenerationChange(from: 1, to: 2, invalidated: [])), g: 2, a: 1)
        script.add(.callerJoined(caller: "scene", state: .ready), g: 2, a: 1)
        script.add(.snapshotPublished(services: 2), g: 2, a: 1)
        script.add(.callerJoined(caller: "push", state: .ready), scope: "push#1")
        #expect(
            TraceInvariants.readyAfterItsSnapshot.check(script.events).detail
                == "scene found g2 ready before it published a snapshot; push found g1 push#1 ready before it published a snapshot"
        )
    }

    @Test("with an optional service, a build is for what its requests need: a retry without the optional one is fine")
    func optionalLeftOutOfARetry() throws {
        var telemetry = ServiceSpec(ServiceKey<Int>("telemetry")) { _ in 1 }
        telemetry.isOptional = true
        let graph = try ServiceGraph([telemetry, ServiceSpec(ServiceKey<Int>("session")) { _ in 2 }])
        var script = TraceScript()
        script.add([.buildStarted, .nodeStarted(node: "telemetry"), .nodeStarted(node: "session")])
        script.add(.nodeFailed(node: "telemetry", failure: .transient, error: "offline", optional: true))
        script.add(.nodeFailed(node: "session", failure: .transient, error: "offline"))
        script.add([.buildStarted, .nodeStarted(node: "session")], g: 1, a: 2)
        script.add(.nodeSucceeded(node: "session", duration: .zero), g: 1, a: 2)
        #expect(TraceInvariants.oneOutcomePerNode(graph).check(script.events).passed)
        // Without the optional service the graph is not demand-driven: every build ends every node.
        #expect(
            TraceInvariants.oneOutcomePerNode(self.graph).check(script.events).detail?
                .contains("database has 0 outcomes in g1 a1") == true)
    }

    @Test("a snapshot published after its generation was reset")
    func publishAfterReset() {
        var script = TraceScript()
        script.add(.generationReset(TraceEvent.GenerationChange(from: 1, to: 2, invalidated: nil)), g: 2, a: 1)
        script.add(.snapshotPublished(services: 2), g: 1, a: 1)
        #expect(failing(script.events) == ["no snapshot is published after a reset of its generation"])
    }

    @Test("two main-actor nodes of one build running at once; one after another, or in two builds, is fine")
    func mainActorNodesOverlap() {
        var script = TraceScript()
        script.add([
            .buildStarted, .buildAdded(nodes: ["database", "session"], caller: "launch"),
            .nodeStarted(node: "database", executor: .main, priority: .high),
            .nodeStarted(node: "session", executor: .main, priority: .high),
        ])
        script.add(.nodeSucceeded(node: "database", duration: .microseconds(200)))
        script.add(.nodeSucceeded(node: "session", duration: .microseconds(100)))
        #expect(
            TraceInvariants.mainActorNodesOneAtATime.check(script.events).detail
                == "session started while database ran in g1 a1")
        var fine = TraceScript()
        fine.add([
            .buildStarted, .nodeStarted(node: "database", executor: .main, priority: .high),
            .nodeSucceeded(node: "database", duration: .microseconds(100)),
            .nodeStarted(node: "session", executor: .main, priority: .high),
        ])
        fine.add(.nodeStarted(node: "detail", executor: .main, priority: .high), scope: "push#1")
        fine.add(.nodeStarted(node: "other", executor: .pool, priority: .high))
        #expect(TraceInvariants.mainActorNodesOneAtATime.check(fine.events).passed)
    }

    @Test("time going back")
    func timeGoesBack() {
        let events = [
            TraceEvent(time: .milliseconds(2), build: BuildAttempt(generation: 1, attempt: 1), kind: .buildStarted),
            TraceEvent(time: .milliseconds(1), build: BuildAttempt(generation: 1, attempt: 1), kind: .buildCancelled),
        ]
        #expect(failing(events).contains("event times never go back"))
    }

    @Test("the hand-written retried trace keeps every rule")
    func scriptKeepsRules() {
        #expect(failing(TraceScript.retried).isEmpty)
    }

    @Test("an instance closed and opened again under the same id is checked as two instances")
    func reopenedInstance() async throws {
        let recorder = TraceRecorder()
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("s"), dependsOn: ["a"], lifetime: .scope("push")) { _ in 2 },
            ], scopes: ["push"])
        let container = ServiceContainer(graph: graph, trace: [recorder])
        _ = try await container.start()
        for _ in 0..<2 {
            let instance = try container.openScope("push", id: "x")
            _ = try await instance.start()
            try await instance.close()
        }
        try await container.shutdown()
        let failed = TraceInvariants.check(recorder.events, graph: graph).filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed.map(\.description))")
        // Unseparated, the second instance's build looks like a second build of the first's attempt.
        #expect(recorder.events.check([TraceInvariants.oneBuildPerAttempt]).contains { !$0.passed })
    }
}
