import ContainerTesting
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let token = ServiceKey("token")
}

@Suite(
    "The trace of demand-driven builds: what each caller asked, what each build added for whom, inputs, optional failures"
)
struct DemandTraceTests {
    /// The `build.added` events of `events`, as (nodes, caller).
    private func added(_ events: [TraceEvent]) -> [(nodes: [String], caller: String)] {
        events.compactMap { if case .buildAdded(let nodes, let caller) = $0.kind { (nodes, caller) } else { nil } }
    }

    /// What each caller asked for, by label.
    private func requests(_ events: [TraceEvent]) -> [String: TraceEvent.Request] {
        var requests: [String: TraceEvent.Request] = [:]
        for event in events {
            if case .callerJoined(let caller, _, let request?) = event.kind { requests[caller] = request }
        }
        return requests
    }

    @Test("a request joining a running build adds only what the build lacks, named for it, after its caller.joined")
    func growingBuild() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("base", log: log, start: .lazy) { _ in
                    try await gate.wait(timeout: .seconds(30), "the test to open base")
                },
                countedSpec("left", dependsOn: ["base"], log: log, start: .lazy),
                countedSpec("extra", log: log, start: .lazy),
                countedSpec("right", dependsOn: ["base", "extra"], log: log, start: .lazy),
                countedSpec("unused", log: log, start: .lazy),
            ], trace: [trace])
        let first = Task { try await container.start(needs: [ServiceKey<Made>.made("left").erased], as: "first") }
        try await trace.wait(for: "base to start", timeout: .seconds(30)) {
            $0.contains { $0.kind.starts("base") }
        }
        let second = Task { try await container.start(needs: [ServiceKey<Made>.made("right").erased], as: "second") }
        try await trace.wait(for: "the second request to grow the build", timeout: .seconds(30)) {
            $0.count { $0.kind.name == "build.added" } == 2
        }
        gate.open()
        _ = try await withTimeout(.seconds(30), "first") { try await first.value }
        _ = try await withTimeout(.seconds(30), "second") { try await second.value }

        let events = trace.events
        let adds = added(events)
        #expect(adds.map(\.caller) == ["first", "second"])
        #expect(adds.first?.nodes == ["base", "left"], "in the order they may start")
        #expect(Set(adds.last?.nodes ?? []) == ["extra", "right"], "base was a member already: not added again")
        #expect(!adds.flatMap(\.nodes).contains("unused"))
        #expect(requests(events) == ["first": .services(["left"]), "second": .services(["right"])])
        let joined = events.firstIndex {
            if case .callerJoined("second", .running, _) = $0.kind { true } else { false }
        }
        let grew = events.firstIndex { if case .buildAdded(_, "second") = $0.kind { true } else { false } }
        #expect(joined != nil && grew != nil && joined! < grew!, "the build grows after the caller joined")
        let started = events.firstIndex { $0.kind == .buildStarted }
        let firstAdd = events.firstIndex { $0.kind.name == "build.added" }
        #expect(started != nil && firstAdd == started.map { $0 + 1 }, "the first build.added follows build.started")
        #expect(trace.count("build.started") == 1)
        for name in ["base", "left", "extra", "right"] { #expect(log.count(of: name) == 1) }
        try events.expect(TraceInvariants.expectations(for: container.graph))
    }

    @Test("start() asks for the eager services, startDeferred() for the deferred; each build adds only its own")
    func eagerAndDeferred() async throws {
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("settings", log: log),
                countedSpec("imageCache", dependsOn: ["settings"], log: log, start: .deferred),
                countedSpec("search", log: log, start: .lazy),
            ], trace: [trace])
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start(as: "launch") }
        _ = try await withTimeout(.seconds(30), "startDeferred()") { try await container.startDeferred(as: "frame") }
        let events = trace.events
        #expect(requests(events) == ["launch": .eager, "frame": .deferred])
        #expect(added(events).map(\.nodes) == [["settings"], ["imageCache"]])
        #expect(added(events).map(\.caller) == ["launch", "frame"])
        #expect(events.contains { $0.kind == .nodeReused(node: "settings") && $0.build.attempt == 2 })
        // The caller that starts a build is traced in that build's attempt, not the last one's.
        let frameJoined = events.first { $0.kind.caller == "frame" && $0.kind.name == "caller.joined" }
        #expect(frameJoined?.build == BuildAttempt(generation: 1, attempt: 2))
        try events.expect(TraceInvariants.expectations(for: container.graph))
    }

    @Test("an optional service's node.failed says it is optional; a required one's does not")
    func optionalFailures() async throws {
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                optional(
                    countedSpec("telemetry", log: log, defaultFailure: .permanent) { _ in
                        throw FakeFailure(.permanent, "no SDK key")
                    }),
                countedSpec("feed", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                    throw FakeFailure(.permanent, "offline")
                },
            ], trace: [trace])
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start(as: "launch") }
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "feed") {
                try await container.service(ServiceKey<Made>.made("feed"), as: "feed")
            }
        }
        let failures = trace.events.compactMap { event -> (String, Bool)? in
            if case .nodeFailed(let node, _, _, let optional) = event.kind { (node, optional) } else { nil }
        }
        #expect(failures.map(\.0) == ["telemetry", "feed"])
        #expect(failures.map(\.1) == [true, false])
        #expect(requests(trace.events)["feed"] == .services(["feed"]))
    }

    @Test("input.supplied comes before the input's node ends, says when it replaces a value, and never holds the value")
    func inputSupplied() async throws {
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                .input(.token),
                countedSpec("registration", dependsOn: ["token"], log: OrderLog(), start: .lazy),
            ], trace: [trace])
        let request = Task { try await container.service(ServiceKey<Made>.made("registration"), as: "push") }
        try await trace.wait(for: "the input to wait", timeout: .seconds(30)) {
            $0.contains { $0.kind.starts("token") }
        }
        try await container.supply(.token, "secret-token-1")
        _ = try await withTimeout(.seconds(30), "registration") { try await request.value }
        let report = try await container.supply(.token, "secret-token-2")
        #expect(report != nil, "a new value of a built input resets its dependents")

        let events = trace.events
        let supplied = events.indices.filter { events[$0].kind.name == "input.supplied" }
        #expect(
            supplied.map { events[$0].kind } == [
                .inputSupplied(node: "token", replaced: false), .inputSupplied(node: "token", replaced: true),
            ])
        let succeeded = events.firstIndex { $0.kind.name == "node.succeeded" && $0.kind.node == "token" }
        #expect(supplied.first != nil && succeeded != nil && supplied.first! < succeeded!)
        let reset = events.firstIndex { $0.kind.name == "generation.reset" }
        #expect(reset != nil && supplied.last! < reset!, "the second value's reset follows it")
        #expect(!events.map(\.description).joined().contains("secret"))
        #expect(!"\(events)".contains("secret-token"), "the value is never traced")
        try events.expect(TraceInvariants.expectations(for: container.graph))
    }

    @Test("a request for a node that failed in the build still running is answered, and its answer traced")
    func joinAfterFailureIsResumedInTheTrace() async throws {
        let log = OrderLog()
        let gate = Gate()
        let started = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("slow", log: log, start: .lazy) { _ in
                    started.open()
                    try await gate.wait(timeout: .seconds(30), "the test to open slow")
                },
                countedSpec("broken", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError() },
            ], trace: [trace])
        let slow = Task { try await container.service(.made("slow"), as: "slow") }
        try await started.wait(timeout: .seconds(30), "slow to start")
        for caller in ["first", "second"] {
            let error = await #expect(throws: ContainerError.self) {
                try await container.service(.made("broken"), as: caller)
            }
            #expect(error?.code == .buildFailed, "\(caller)")
        }
        gate.open()
        _ = try await withTimeout(.seconds(30), "slow") { try await slow.value }
        #expect(log.count(of: "broken") == 1, "the second request found its failure in the build")
        let resumed = trace.events.compactMap { event -> String? in
            if case .callerResumed(let caller, _) = event.kind { return caller }
            return nil
        }
        #expect(resumed.filter { $0 == "second" }.count == 1)
        let failed = TraceInvariants.check(trace.events, graph: container.core.graph).filter { !$0.passed }
        #expect(failed.isEmpty, "\(failed.map(\.claim))")
    }
}
