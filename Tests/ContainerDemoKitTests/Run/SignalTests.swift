import ContainerTesting
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The README's "Signals": the demo shuts down gracefully on SIGINT and SIGTERM. These tests run the built
/// binary as a child process, with a build that hangs (a `simulated` node with outcome `hang`)
/// after a SQLite database (whose teardown closes it) has succeeded.
@Suite("Signals: the demo process shuts down gracefully", .timeLimit(.minutes(2)))
struct SignalTests {
    /// A database that opens, then a node that never ends: the build runs until cancelled.
    static let hangingConfig = """
        { "version": 1, "services": [
          { "name": "database", "provider": "sqlite", "options": { "path": ":memory:" } },
          { "name": "slow", "provider": "simulated", "dependsOn": ["database"], "options": { "outcomes": ["hang"] } }
        ] }
        """

    /// Starts the demo on the hanging config and waits until its trace shows `slow` started.
    private func startHanging(_ folder: TemporaryFolder, grace: String? = nil) async throws -> DemoChild {
        let config = try folder.write("hang.json", Self.hangingConfig)
        let child = try DemoChild(
            ["--config", config, "--trace", "jsonl", "--callers", "2", "--data-dir", folder.path], in: folder.path,
            environment: grace.map { ["CONTAINER_DEMO_GRACE_MS": $0] } ?? [:])
        try await child.output.wait(for: "slow to start") { lines, _ in
            lines.contains { $0.contains(#""event":"node.started","node":"slow""#) }
        }
        return child
    }

    /// The child's whole standard output, once it closed and the child exited.
    private func finish(_ child: DemoChild) async throws -> [[String: Any]] {
        do {
            try await child.exited.wait(timeout: .seconds(60))
        } catch {
            Issue.record(
                "the child did not exit; stderr: \(child.standardError)\nstdout: \(child.output.lines.joined(separator: "\n"))"
            )
            throw error
        }
        try await child.output.waitForEnd(timeout: .seconds(30))
        return JSONLines.parse(child.output.lines.joined(separator: "\n"))
    }

    @Test("SIGTERM during a slow build: teardown, container.shutdown in the trace, exit 143")
    func sigtermDuringBuild() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let child = try await startHanging(folder)
        defer { child.stop() }
        let before = JSONLines.parse(child.output.lines.joined(separator: "\n"))
        #expect(before.contains { $0["event"] as? String == "build.started" })
        #expect(!before.contains { $0["event"] as? String == "node.tornDown" })

        child.send(SIGTERM)
        let after = try await finish(child)
        #expect(child.exitStatus == 143, "stderr: \(child.standardError)")
        let events = after.compactMap { $0["event"] as? String }
        // The shutdown began at the signal, waited for the build until the grace period ended,
        // cancelled it, then tore down the database it had opened.
        let shutdown = events.firstIndex(of: "container.shutdown")
        let cancelled = after.firstIndex {
            $0["event"] as? String == "node.cancelled" && $0["node"] as? String == "slow"
        }
        let tornDown = after.firstIndex {
            $0["event"] as? String == "node.tornDown" && $0["node"] as? String == "database"
        }
        #expect(shutdown != nil && cancelled != nil && tornDown != nil, "events after the signal: \(events)")
        if let shutdown, let cancelled, let tornDown {
            #expect(shutdown < cancelled && cancelled < tornDown)
        }
        #expect(child.standardError.contains("SIGTERM: shutting down"))
        #expect(child.standardError.contains("exit status 143"))
    }

    @Test("SIGINT: exit 130; a second signal during the shutdown exits at once, before the teardown")
    func secondSignalExitsAtOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A 60 s grace: the second signal comes long before the graceful path would tear down,
        // however slowly the loaded machine delivers it (2 s were not enough under ThreadSanitizer).
        let child = try await startHanging(folder, grace: "60000")
        defer { child.stop() }
        child.send(SIGINT)
        // The shutdown has begun when the demo says so; the build then has its grace period
        // (`container.shutdown` is traced once it ends).
        try await child.errors.wait(for: "the shutdown to begin") { lines, _ in
            lines.contains { $0.contains("SIGINT: shutting down") }
        }
        child.send(SIGTERM)
        let after = try await finish(child)
        #expect(child.exitStatus == 130, "the first signal's status; stderr: \(child.standardError)")
        #expect(child.standardError.contains("exiting at once"))
        // The graceful path would have cancelled the hanging build and torn the database down.
        #expect(!after.contains { $0["event"] as? String == "node.tornDown" })
    }
}
