import ContainerTesting
import Synchronization
import TestSupport
import Testing

@testable import Container

/// A graph of `count` counted services for reload tests: node `i` depends on `i - 1` and `i / 2`.
private struct ReloadLab: Sendable {
    let calls = Locked<[String: Int]>([:])
    let torn = Locked<[String: Int]>([:])

    func spec(_ name: String, dependsOn: [String], version: Int = 1) -> ServiceSpec {
        var spec = ServiceSpec(
            .made(name), dependsOn: dependsOn, options: ServiceOptions(["version": .int(version)]),
            tearDown: { [torn] value in torn.withLock { $0[value.name, default: 0] += 1 } }
        ) { [calls] context in
            calls.withLock { $0[name, default: 0] += 1 }
            return Made(name: name, generation: context.generation)
        }
        spec.options = ServiceOptions(["version": .int(version)])
        return spec
    }

    func specs(count: Int, changing changed: String? = nil, dropping dropped: Set<String> = [], adding: [String] = [])
        -> [ServiceSpec]
    {
        var specs: [ServiceSpec] = []
        for index in 0..<count where !dropped.contains("s\(index)") {
            let dependencies = Set([index - 1, index / 2].filter { $0 >= 0 && $0 != index }).sorted()
                .map { "s\($0)" }.filter { !dropped.contains($0) }
            specs.append(spec("s\(index)", dependsOn: dependencies, version: "s\(index)" == changed ? 2 : 1))
        }
        for name in adding { specs.append(spec(name, dependsOn: ["s0"])) }
        return specs
    }

    func count(_ name: String) -> Int { calls.withLock { $0[name] ?? 0 } }
}

@Suite("Live operations: reload, attempt budget, graceful shutdown, status (Reload, AttemptBudget, ShutdownAndStatus)")
struct LiveOperationsTests {
    @Test("Reloading a 50-node graph with one changed option rebuilds exactly it and its dependents")
    func reloadRebuildsOnlyWhatChanged() async throws {
        let lab = ReloadLab()
        let container = try ServiceContainer(lab.specs(count: 50))
        let before = try await container.start()
        let changedGraph = try ServiceGraph(
            lab.specs(count: 50, changing: "s20", dropping: ["s49"], adding: ["extra"]))
        let expectedRebuilt = changedGraph.closure(ofDependentsOf: [changedGraph.layout.slots["s20"]!])
            .map { changedGraph.nodes[$0].name }

        let report = try await container.reload(changedGraph)
        #expect(report.changed == ["s20"] && report.removed == ["s49"] && report.added == ["extra"])
        #expect(Set(report.rebuilt) == Set(expectedRebuilt + ["extra"]))
        #expect(report.tornDown.count == expectedRebuilt.count + 1, "the replaced values and the removed one")
        #expect(lab.torn.withLock { $0 }["s49"] == 1)
        #expect(container.current == nil, "a new generation waits for start()")

        let after = try await container.start()
        #expect(after.generation == 2)
        for name in changedGraph.serviceNames {
            let rebuilt = expectedRebuilt.contains(name)
            #expect(lab.count(name) == (name == "extra" ? 1 : rebuilt ? 2 : 1), "\(name)")
            if !rebuilt && name != "extra" {
                #expect(try after[.made(name)] === before[.made(name)], "\(name) carried over, the same instance")
            }
        }
        #expect(lab.torn.withLock { $0.values.reduce(0, +) } == expectedRebuilt.count + 1, "nothing else torn down")
    }

    @Test("A reload with an invalid graph is refused and changes nothing: same generation, snapshot, no provider call")
    func invalidReloadChangesNothing() async throws {
        let lab = ReloadLab()
        let recorder = TraceRecorder()
        let container = try ServiceContainer(lab.specs(count: 5), trace: [recorder])
        let snapshot = try await container.start()
        var broken = lab.specs(count: 5)
        broken[0].dependsOn = ["s4"]  // a cycle
        // The new graph is validated before the container sees it: the reload never starts.
        let error = await #expect(throws: GraphError.self) { try await container.reload(try ServiceGraph(broken)) }
        #expect(error?.issues.contains { $0.code == .cycle } == true)
        #expect(container.current === snapshot && container.generation == 1)
        #expect(try await container.start() === snapshot, "the old snapshot is still what callers get")
        #expect((0..<5).allSatisfy { lab.count("s\($0)") == 1 }, "no provider ran again")
        #expect(lab.torn.withLock { $0.isEmpty }, "nothing was torn down")
        #expect(!recorder.events.contains { $0.kind.name == "generation.reset" })
        // A valid reload afterwards compares with the graph the container has, not the rejected one.
        let report = try await container.reload(try ServiceGraph(lab.specs(count: 5, changing: "s4")))
        #expect(report.changed == ["s4"] && report.rebuilt == ["s4"] && report.from == 1 && report.to == 2)
    }

    @Test("Reload racing start() and reset(), 1,000 times: no torn-down value is ever in a published snapshot")
    func reloadRaces() async throws {
        for iteration in 0..<1_000 {
            let lab = ReloadLab()
            // Keyed by identity, holding the value so that no later value can reuse its address.
            let tornAt = Locked<[ObjectIdentifier: (value: Made, at: Int)]>([:])
            let clock = Atomic<Int>(0)
            var specs = lab.specs(count: 4)
            for index in specs.indices {
                let name = specs[index].name
                specs[index] = ServiceSpec(
                    .made(name), dependsOn: specs[index].dependsOn, options: specs[index].options,
                    tearDown: { value in
                        let now = clock.add(1, ordering: .sequentiallyConsistent).newValue
                        tornAt.withLock { $0[ObjectIdentifier(value)] = (value, now) }
                    }
                ) { context in Made(name: name, generation: context.generation) }
            }
            let container = try ServiceContainer(specs)
            _ = try await container.start()
            var changed = specs
            changed[2].options = ServiceOptions(["version": .int(iteration)])
            let graph = try ServiceGraph(changed)
            let check = { @Sendable (snapshot: AppServices, askedAt: Int) in
                for name in snapshot.serviceNames {
                    let value = try snapshot[.made(name)]
                    if let torn = tornAt.withLock({ $0[ObjectIdentifier(value)]?.at }), torn < askedAt {
                        Issue.record("iteration \(iteration): \(name) was torn down before the caller asked")
                    }
                }
            }
            async let reload = try? await container.reload(graph)
            async let reset = try? await container.reset(invalidating: ["s1"])
            async let caller: Void = {
                for _ in 0..<3 {
                    let askedAt = clock.load(ordering: .sequentiallyConsistent)
                    if let snapshot = try? await container.start() { try? check(snapshot, askedAt) }
                }
            }()
            _ = await (reload, reset, caller)
            let askedAt = clock.load(ordering: .sequentiallyConsistent)
            try check(try await container.start(), askedAt)
            try await container.shutdown()
        }
    }

    @Test("The attempt budget: 100 retrying callers get exactly maxAttempts builds, then attemptsExhausted")
    func attemptBudget() async throws {
        let calls = Counter()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("flaky")) { _ in
                    calls.increment()
                    throw Classified(failureKind: .transient)
                }
            ], policy: BuildPolicy(maxAttempts: 3))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    // Each caller retries until the failure is not transient any more.
                    while true {
                        do {
                            _ = try await container.start()
                        } catch let error as ContainerError where error.code == .buildFailed {
                            continue
                        } catch let error as ContainerError {
                            #expect(error.code == .attemptsExhausted)
                            return
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(calls.count == 3)
        let sticky = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(sticky?.code == .attemptsExhausted && calls.count == 3)
        #expect(container.status.state == .failed)
        try await container.reset()
        await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(calls.count == 4, "a reset starts a new budget")
    }

    @Test("Callers before retryAfter get the last failure at once, without a build; the trace says waiting")
    func retryAfter() async throws {
        let calls = Counter()
        let recorder = TraceRecorder()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("flaky")) { _ in
                    calls.increment()
                    throw Classified(failureKind: .transient)
                }
            ], policy: BuildPolicy(retryAfter: RetryPolicy.Backoff(initialDelay: .seconds(3_600))), trace: [recorder])
        let first = await #expect(throws: ContainerError.self) { try await container.start() }
        for _ in 0..<10 {
            let again = await #expect(throws: ContainerError.self) { try await container.start() }
            #expect(again?.message == first?.message)
        }
        #expect(calls.count == 1)
        #expect(recorder.events.count { if case .callerJoined(_, .waiting, _) = $0.kind { true } else { false } } == 10)
        let status = container.status
        #expect(status.state == .waiting && status.nextAttemptAt != nil && status.lastFailure?.code == .buildFailed)
    }

    @Test("shutdown(deadline:) lets a build that finishes in time publish to its callers")
    func gracefulShutdownWaits() async throws {
        let started = Gate()
        let proceed = Gate()
        let torn = OrderLog()
        let container = try ServiceContainer([
            ServiceSpec(.made("a"), tearDown: { torn.append($0.name) }) { context in
                started.open()
                await proceed.wait()
                return Made(name: "a", generation: context.generation)
            }
        ])
        let caller = Task { try await container.start() }
        try await withTimeout { await started.wait() }
        let shutdown = Task { try await container.shutdown(deadline: .now + .seconds(3_600)) }
        // Refused at once while the build drains.
        try await withTimeout {
            while container.status.state != .shuttingDown { await Task.yield() }
        }
        await #expect(throws: ContainerError.self) { try await container.start() }
        proceed.open()
        let snapshot = try await withTimeout { try await caller.value }
        #expect(snapshot.generation == 1)
        let report = try await withTimeout { try await shutdown.value }
        #expect(report.cancelledBuild == nil && report.tornDown.map(\.service) == ["a"] && torn.entries == ["a"])
    }

    @Test("shutdown(deadline:) cancels a build still running at the deadline; its callers get shutDown")
    func gracefulShutdownCancelsAtTheDeadline() async throws {
        let started = Gate()
        let held = Gate()
        let container = try ServiceContainer([
            ServiceSpec(.made("a")) { context in
                started.open()
                try await held.cancellableWait()
                return Made(name: "a", generation: context.generation)
            }
        ])
        let caller = Task { try await container.start() }
        try await withTimeout { await started.wait() }
        let report = try await withTimeout {
            try await container.shutdown(deadline: .now + .milliseconds(50))
        }
        #expect(report.cancelledBuild == BuildAttempt(generation: 1, attempt: 1))
        let result = try await withTimeout { await caller.result }
        #expect((result.error as? ContainerError)?.code == .shutDown)
        #expect(container.status.state == .shutDown)
    }

    @Test("status follows the lifecycle: idle, ready, failed with its report")
    func status() async throws {
        let fail = Locked(false)
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(ServiceKey<Int>("a")) { _ in
                        if fail.withLock({ $0 }) { throw Classified(failureKind: .permanent) }
                        return 1
                    },
                    ServiceSpec(ServiceKey<Int>("s"), lifetime: .scope("push")) { _ in 2 },
                ], scopes: ["push"]))
        #expect(container.status.state == .idle && container.status.lastBuild == nil)
        _ = try await container.start()
        let push = try container.openScope("push", id: "n")
        var status = container.status
        #expect(status.state == .ready && status.generation == 1 && status.openScopes == ["push#n"])
        #expect(status.lastBuild?.outcome(of: "a")?.hasValue == true && status.lastFailure == nil)
        fail.withLock { $0 = true }
        try await push.close()
        try await container.reset()
        await #expect(throws: ContainerError.self) { try await container.start() }
        status = container.status
        #expect(status.state == .failed && status.generation == 2 && status.lastFailure?.failure == .permanent)
        #expect(status.openScopes.isEmpty)
    }
}
