import ContainerTesting
import Testing

@testable import Container

@Suite("Transient and permanent failures (Coordinator rules 3, 4)")
struct FailureTests {
    @Test("Transient failure returns to idle; the retry reuses nodes that succeeded")
    func transientThenRetry() async throws {
        let log = OrderLog()
        let failOnce = Counter()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("config", log: log),
                countedSpec("database", dependsOn: ["config"], log: log),
                countedSpec("session", dependsOn: ["database"], log: log) { _ in
                    if failOnce.increment() == 1 { throw Classified(failureKind: .transient) }
                },
                countedSpec("analytics", log: log),
            ], trace: [watcher])

        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(error?.code == .buildFailed)
        #expect(error?.failure == .transient)
        #expect(container.current == nil)

        let services = try await container.start()
        #expect(services.report.attempt == 2)
        #expect(services.generation == 1)
        #expect(log.count(of: "config") == 1)
        #expect(log.count(of: "database") == 1)
        #expect(log.count(of: "analytics") == 1)
        #expect(log.count(of: "session") == 2)
        #expect(services.report.outcome(of: "database") == .reused)
        #expect(services.report.outcome(of: "analytics") == .reused)
        if case .succeeded? = services.report.outcome(of: "session") {
        } else {
            Issue.record("session should have succeeded in attempt 2")
        }
        let reused = watcher.events.filter { $0.kind.name == "node.reused" && $0.attempt == 2 }.compactMap(\.kind.node)
        #expect(Set(reused) == ["config", "database", "analytics"])
        #expect(watcher.count("build.started") == 2)
    }

    @Test("Permanent failure is sticky: later calls fail at once without building, until reset")
    func permanentIsSticky() async throws {
        let log = OrderLog()
        let watcher = TraceWatcher()
        let shouldFail = Counter()
        let container = try ServiceContainer(
            [
                countedSpec("config", log: log),
                countedSpec("broken", dependsOn: ["config"], log: log) { _ in
                    if shouldFail.count == 0 { throw Classified(failureKind: .permanent) }
                },
            ], trace: [watcher])

        let first = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(first?.failure == .permanent)
        for _ in 0..<5 {
            let again = await #expect(throws: ContainerError.self) { try await container.start() }
            #expect(again?.message == first?.message)
            #expect(again?.report?.attempt == 1)
        }
        #expect(log.count(of: "broken") == 1)
        #expect(log.count(of: "config") == 1)
        #expect(watcher.count("build.started") == 1)
        let failedJoins = watcher.events.count {
            if case .callerJoined(_, .failed, _) = $0.kind { return true }
            return false
        }
        #expect(failedJoins == 5)

        shouldFail.increment()
        let report = try await container.reset()
        #expect(report.from == 1 && report.to == 2)
        let services = try await container.start()
        #expect(services.generation == 2)
        #expect(log.count(of: "broken") == 2)
        #expect(log.count(of: "config") == 2)
    }

    @Test("A failing node skips exactly its transitive dependents; independent branches succeed")
    func skipsDependentsOnly() async throws {
        //   a -> b -> c -> d        x -> y       (b fails)
        //        b -> e ; f depends on (d, y)
        let names = ["a", "b", "c", "d", "e", "x", "y", "f"]
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("a", log: log),
            countedSpec("b", dependsOn: ["a"], log: log) { _ in throw Classified(failureKind: .transient) },
            countedSpec("c", dependsOn: ["b"], log: log),
            countedSpec("d", dependsOn: ["c"], log: log),
            countedSpec("e", dependsOn: ["b"], log: log),
            countedSpec("x", log: log),
            countedSpec("y", dependsOn: ["x"], log: log),
            countedSpec("f", dependsOn: ["d", "y"], log: log),
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        let report = try #require(error?.report)
        #expect(report.nodes.count == names.count)
        #expect(report.failedNodes == ["b"])
        for name in ["c", "d", "e", "f"] {
            #expect(report.outcome(of: name) == .skipped(because: ["b"]), "\(name)")
            #expect(log.count(of: name) == 0)
            #expect(report.node(name)?.runs == 0)
        }
        for name in ["a", "x", "y"] {
            #expect(report.outcome(of: name)?.hasValue == true, "\(name)")
            #expect(log.count(of: name) == 1)
        }
        #expect(container.current == nil)
    }

    @Test("Skipped names every failed upstream root")
    func skippedBecauseSeveralRoots() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("p", log: log) { _ in throw TestError("p") },
            countedSpec("q", log: log) { _ in throw TestError("q") },
            countedSpec("r", dependsOn: ["q", "p"], log: log),
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(error?.report?.outcome(of: "r") == .skipped(because: ["p", "q"]))
    }

    @Test("failFast cancels running independent branches and starts nothing else")
    func failFastCancels() async throws {
        let holding = Gate()
        let started = Gate()
        let log = OrderLog()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("slow", log: log) { _ in
                    started.open()
                    try await holding.cancellableWait()
                },
                countedSpec("afterSlow", dependsOn: ["slow"], log: log),
                countedSpec("bad", log: log) { _ in
                    await started.wait()  // fail only once "slow" is running
                    throw Classified(failureKind: .permanent)
                },
                countedSpec("dependent", dependsOn: ["bad"], log: log),
            ], policy: .failFast, trace: [watcher])

        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the fail-fast build") { try await container.start() }
        }
        let report = try #require(error?.report)
        #expect(report.failure == .permanent)
        #expect(report.outcome(of: "slow") == .cancelled(.whileRunning))
        #expect(report.outcome(of: "afterSlow") == .cancelled(.beforeStart))
        #expect(report.outcome(of: "dependent") == .skipped(because: ["bad"]))
        #expect(log.count(of: "afterSlow") == 0)
        for name in ["slow", "afterSlow", "bad", "dependent"] {
            let terminal = watcher.events.count { $0.kind.node == name && $0.kind.isTerminalNodeEvent }
            #expect(terminal == 1, "\(name) has \(terminal) terminal events")
        }
        #expect(container.current == nil)
    }

    @Test("Without failFast an independent branch finishes and is kept for the retry")
    func continueKeepsIndependentBranch() async throws {
        let log = OrderLog()
        let started = Gate()
        let container = try ServiceContainer([
            countedSpec("slow", log: log) { _ in started.open() },
            countedSpec("bad", log: log) { _ in
                await started.wait()
                if log.count(of: "bad") == 1 { throw TestError() }
            },
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(error?.report?.outcome(of: "slow")?.hasValue == true)
        let services = try await container.start()
        #expect(services.report.outcome(of: "slow") == .reused)
        #expect(log.count(of: "slow") == 1)
    }
}
