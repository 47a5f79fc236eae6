import Container
import ContainerTesting
import TestSupport
import Testing

@Suite("Trace expectations: each holds on a trace that shows it, and fails with what was seen")
struct TraceExpectationTests {
    let events = TraceScript.retried

    /// The expectation's result on ``events``.
    func check(_ expectation: TraceExpectation) -> CheckResult { expectation.check(events) }

    @Test("node expectations")
    func nodes() {
        #expect(check(.started("database", times: 2)).passed)
        #expect(check(.started("session", times: 1)).passed)
        #expect(check(.builtOnce("session")).passed)
        #expect(check(.builtOnce("database")).detail == "started 2 times, succeeded 1 time")
        #expect(check(.notStarted("cache")).passed)
        #expect(check(.notStarted("session")).detail == "started in g1 a2")
        #expect(check(.succeeded("database")).passed)
        #expect(check(.failed("database")).passed)
        #expect(check(.failed("database", .transient)).passed)
        #expect(!check(.failed("database", .permanent)).passed)
        #expect(
            check(.failed("session")).detail == "session: skipped because of database, started, succeeded, tornDown")
        #expect(check(.skipped("session", because: "database")).passed)
        #expect(check(.skipped("session", because: "cache")).detail == "skipped because of database")
        #expect(
            check(.skipped("database", because: "x")).detail?.hasPrefix("database: started, failed (transient)") == true
        )
        #expect(check(.reused("database")).detail?.hasPrefix("database: ") == true)
        #expect(check(.overridden("database")).passed)
        #expect(check(.overridden("session")).detail == "session started 1 time, never as an override")
        #expect(check(.tornDown("session", times: 1)).passed)
        #expect(check(.tornDown(inOrder: ["session", "database"])).passed)
        #expect(check(.tornDown(inOrder: ["database", "session"])).detail == "torn down: session, database")
        #expect(check(.succeeded("cache")).detail == "no events for cache")
    }

    @Test("caller and build expectations")
    func callersAndBuilds() {
        #expect(check(.resumedWithSnapshot("launch")).passed)
        #expect(check(.resumed("launch", with: .failure)).passed)
        #expect(
            check(.resumed("launch", with: .superseded)).detail
                == "launch: joined (idle), resumed with the failure, joined (idle), resumed with the snapshot")
        #expect(check(.joined("launch", finding: .idle)).passed)
        #expect(!check(.joined("launch", finding: .running)).passed)
        #expect(check(.cancelled("push")).detail == "no events for caller push")
        #expect(check(.builds(2)).passed)
        #expect(check(.builds(1)).detail == "2 started: g1 a1, g1 a2")
        #expect(check(.published(times: 1)).passed)
        #expect(check(.published(times: 2)).detail == "published 1 time in g1 a2")
        #expect(check(.noSnapshotAfterReset).passed)
    }

    @Test("expect throws one failure listing every expectation that failed, and where it was written")
    func expectThrows() throws {
        try events.expect(.builtOnce("session"), .resumedWithSnapshot("launch"))
        do {
            try events.expect(.builtOnce("session"), .builtOnce("database"), .cancelled("launch"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.failed.map(\.claim) == ["database built once", "launch cancelled"])
            let text = "\(error)"
            #expect(text.hasPrefix("2 trace expectations failed (ContainerTestingTests/TraceExpectationTests.swift:"))
            #expect(text.contains("\n  ✗ database built once: started 2 times, succeeded 1 time"))
        }
    }

    @Test("a custom expectation")
    func custom() {
        let quick = TraceExpectation("every node succeeds within 5ms") { events in
            let slow = events.compactMap { event -> String? in
                if case .nodeSucceeded(let node, let duration) = event.kind, duration > .milliseconds(5) {
                    node
                } else {
                    nil
                }
            }
            return slow.isEmpty ? nil : "slow: \(slow.joined(separator: ", "))"
        }
        #expect(quick.check(events) == CheckResult("every node succeeds within 5ms", true))
        #expect("\(quick.check(events))" == "✓ every node succeeds within 5ms")
        var script = TraceScript()
        script.add(.nodeSucceeded(node: "db", duration: .milliseconds(9)))
        #expect("\(quick.check(script.events))" == "✗ every node succeeds within 5ms: slow: db")
    }
}
