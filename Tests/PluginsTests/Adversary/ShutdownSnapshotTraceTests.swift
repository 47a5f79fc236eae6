import ContainerDemoKit
import Foundation
import TestSupport
import Testing

@Suite("Adversary: graceful shutdown trace", .timeLimit(.minutes(1)))
struct AdversaryShutdownSnapshotTraceTests {
    /// DESIGN.md §6: "Every transition is an event ...: ... snapshot published"; §11: "`shutdown(deadline:)`
    /// refuses new callers, lets the running build finish until the deadline". A build that finishes
    /// within the grace period gives its caller a snapshot, so its trace must say it was published.
    @Test("a build that finishes during the graceful shutdown traces the snapshot its callers receive")
    func snapshotGivenDuringShutdownIsTraced() async throws {
        let config = """
            {"version":1,"services":[{"name":"a","provider":"simulated","options":{"durationMs":600}}]}
            """
        let interrupt = DemoInterrupt(grace: .seconds(30))
        let capture = CapturedOutput()
        let run = Task {
            try await AdversaryDemo.run(
                config: config, ["--trace", "jsonl", "--callers", "1"], interrupt: interrupt, capture: capture)
        }
        // Signal once the slow node runs (polling the captured trace; the node takes 600 ms).
        for _ in 0..<2_000 where !capture.standardOutput.contains("\"node.started\"") {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(interrupt.received(signal: SIGINT) == .shuttingDown)
        let result = try await run.value
        let resumed = result.events.filter {
            $0["event"] as? String == "caller.resumed" && $0["result"] as? String == "snapshot"
        }
        #expect(resumed.count == 1, "the caller got the services: \(result.out)")
        #expect(
            result.events("snapshot.published").count == 1,
            "a caller resumed with a snapshot, but no snapshot.published line: \(result.out)")
    }
}
