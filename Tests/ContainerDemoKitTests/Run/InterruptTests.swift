import Container
import ContainerTesting
import TestSupport
import Testing

@testable import ContainerDemoKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a signal does to a config run, in-process (``DemoInterrupt/received(signal:)`` stands
/// for the signal; `SignalTests` sends real ones to the built binary).
@Suite("Interrupts: graceful shutdown of a config run", .timeLimit(.minutes(1)))
struct InterruptTests {
    private func config(_ folder: TemporaryFolder, slow: String) throws -> LoadedConfig {
        let path = try folder.write(
            "slow.json",
            """
            { "version": 1, "services": [
              { "name": "database", "provider": "sqlite", "options": { "path": ":memory:" } },
              { "name": "slow", "provider": "simulated", "dependsOn": ["database"], "options": \(slow) }
            ] }
            """)
        return try ConfigSource.load(path: path, pathRoots: [:]).get()
    }

    @Test("SIGTERM during a hanging build: cancelled at the deadline, torn down, status 143; again: exit now")
    func hangingBuild() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try config(folder, slow: #"{ "outcomes": ["hang"] }"#)
        let interrupt = DemoInterrupt()
        let watcher = TraceWatcher()
        let run = Task { await ConfigRun.run(config, callers: 3, retries: nil, interrupt: interrupt, live: watcher) }
        try await watcher.wait(for: "slow to start") { $0.contains { $0.kind.node == "slow" } }
        #expect(interrupt.received(signal: SIGTERM) == .shuttingDown)
        let report = try await withTimeout(.seconds(60), "the run to end") { await run.value }
        #expect(interrupt.exitStatus == 143)
        #expect(interrupt.received(signal: SIGINT) == .exitNow(143), "a second signal: the first's status, at once")
        #expect(!report.published)
        let events = report.events
        #expect(events.contains { $0.kind == .nodeCancelled(node: "slow", phase: .whileRunning) })
        #expect(events.contains { $0.kind == .nodeTornDown(node: "database", error: nil) })
        #expect(events.filter { $0.kind == .containerShutdown }.count == 1)
        #expect(report.narrative.allSatisfy { $0.contains("shut down") }, "\(report.narrative)")
    }

    @Test("a build that finishes within the grace period gives its callers the services, then is torn down")
    func buildFinishesInTime() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A 10 s build and a 60 s grace: the signal is handled well before the build ends and the
        // build ends well before the deadline, even with the whole suite running beside it (the
        // shutdown's task waits for a thread of the cooperative pool, which the suite's busiest
        // tests kept for over 3 s once; a 1 s build in the default 2 s grace ended before the
        // signal was handled under ThreadSanitizer).
        let config = try config(folder, slow: #"{ "durationMs": 10000 }"#)
        let interrupt = DemoInterrupt(grace: .seconds(60))
        let watcher = TraceWatcher()
        let run = Task { await ConfigRun.run(config, callers: 2, retries: nil, interrupt: interrupt, live: watcher) }
        // Both callers joined (a caller that comes after the signal is refused), and slow runs.
        try await watcher.wait(for: "both callers to join and slow to start") { events in
            events.count("caller.joined") == 2 && events.contains { $0.kind.node == "slow" }
        }
        #expect(interrupt.received(signal: SIGINT) == .shuttingDown)
        let report = try await withTimeout(.seconds(60), "the run to end") { await run.value }
        #expect(interrupt.exitStatus == 130)
        // The shutdown refuses new callers, so nothing is published for them; the callers of the
        // running build get its outcome.
        #expect(
            report.narrative == [
                "caller-1 → got generation 1 (2 services)", "caller-2 → got generation 1 (2 services)",
            ])
        let events = report.events
        let shutdown = try #require(events.firstIndex { $0.kind == .containerShutdown })
        let succeeded = try #require(events.firstIndex { $0.kind.name == "node.succeeded" && $0.kind.node == "slow" })
        let resumed = try #require(
            events.firstIndex { $0.kind == .callerResumed(caller: "caller-1", result: .snapshot) })
        let tornDown = try #require(events.firstIndex { $0.kind == .nodeTornDown(node: "database", error: nil) })
        // The snapshot the callers got was published like any other, traced before they resume;
        // `container.shutdown` ends the drain, before the teardowns (found by an outside run of
        // the trace's rules).
        let published = events.indices.filter { events[$0].kind.name == "snapshot.published" }
        #expect(published.count == 1 && published.allSatisfy { succeeded < $0 && $0 < resumed }, "\(events)")
        #expect(succeeded < resumed && resumed < shutdown && shutdown < tornDown, "\(events)")
        #expect(!events.contains { $0.kind.name == "node.cancelled" })
        #expect(report.published)
    }

    @Test("CONTAINER_DEMO_GRACE_MS sets the grace period, 0 to an hour; anything else is a usage error; unset: 2 s")
    func graceFromTheEnvironment() throws {
        #expect(try DemoInterrupt.grace(from: [:]) == .seconds(2))
        #expect(try DemoInterrupt.grace(from: ["CONTAINER_DEMO_GRACE_MS": "60000"]) == .seconds(60))
        #expect(try DemoInterrupt.grace(from: ["CONTAINER_DEMO_GRACE_MS": "0"]) == .zero)
        #expect(try DemoInterrupt.grace(from: ["CONTAINER_DEMO_GRACE_MS": "3600000"]) == .seconds(3_600))
        for bad in ["-5", "+5", "3600001", "99999999999", "2 s", "abc", ""] {
            let error = #expect(throws: UsageError.self) {
                try DemoInterrupt.grace(from: ["CONTAINER_DEMO_GRACE_MS": bad])
            }
            #expect(error?.message.contains("found '\(bad)'; unset it for the default 2 s") == true)
        }
        let long = String(repeating: "9", count: 500)
        let error = #expect(throws: UsageError.self) {
            try DemoInterrupt.grace(from: ["CONTAINER_DEMO_GRACE_MS": long])
        }
        #expect((error?.message.count ?? .max) < 200, "the echoed value is bounded")
        #expect(DemoInterrupt(grace: .seconds(5)).grace == .seconds(5))
    }

    @Test("a signal while no container runs asks to exit at once with its own status")
    func nothingRunning() {
        #expect(DemoInterrupt().received(signal: SIGTERM) == .exitNow(143))
        #expect(DemoInterrupt().received(signal: SIGINT) == .exitNow(130))
        #expect(DemoInterrupt().exitStatus == nil)
    }

    @Test("a config run names the inputs its callers would wait for; none when nobody needs one")
    func awaitedInputs() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write(
            "inputs.json",
            """
            { "version": 1, "services": [
              { "name": "token", "provider": "input", "options": { "type": "string" } },
              { "name": "unused", "provider": "input", "options": { "type": "string" } },
              { "name": "push", "provider": "simulated", "dependsOn": ["token"] },
              { "name": "later", "provider": "simulated", "dependsOn": ["unused"], "start": "lazy" }
            ] }
            """)
        let config = try ConfigSource.load(path: path, pathRoots: [:]).get()
        #expect(ConfigRun.awaitedInputs(config, genericCallers: 1) == ["token"])
        #expect(ConfigRun.awaitedInputs(config, genericCallers: nil) == ["token"], "4 generic callers by default")
        let none = try ConfigSource.load(
            path: try folder.write("none.json", SimulatedConfigs.config([("a", [], ["ok"])])), pathRoots: [:]
        ).get()
        #expect(ConfigRun.awaitedInputs(none, genericCallers: 1) == [])
    }
}
