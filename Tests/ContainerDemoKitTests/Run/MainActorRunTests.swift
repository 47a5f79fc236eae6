import ContainerDemoKit
import ContainerTesting
import Foundation
import TestSupport
import Testing

/// Main-actor services in the demo: `container-demo` has an async `main`, so the main actor (on
/// Linux, the main Dispatch queue) runs while the build waits, in the process and in the built
/// binary alike.
@Suite("Main-actor services in the demo", .timeLimit(.minutes(2)))
struct MainActorRunTests {
    static let config = """
        { "version": 1, "services": [
          { "name": "settings", "provider": "simulated", "options": { "durationMs": 1 } },
          { "name": "theme", "provider": "simulated", "dependsOn": ["settings"], "isolation": "main" },
          { "name": "router", "provider": "simulated", "isolation": "main", "priority": "high" },
          { "name": "database", "provider": "simulated", "options": { "durationMs": 1 } }
        ] }
        """

    /// Where each node ran, by its `node.started` lines.
    private func executors(_ events: [[String: Any]]) -> [String: String] {
        var executors: [String: String] = [:]
        for event in events where event["event"] as? String == "node.started" {
            if let node = event["node"] as? String { executors[node] = event["executor"] as? String }
        }
        return executors
    }

    private let expected = ["settings": "pool", "theme": "main", "router": "main", "database": "pool"]

    @Test("the demo run in the process builds main-actor services on the main actor")
    func inProcess() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("main.json", Self.config)
        let capture = CapturedOutput()
        let status = await DemoCommand.main(
            ["--config", config, "--trace", "jsonl", "--data-dir", folder.path], output: capture.output())
        #expect(status == 0, "\(capture.standardError)")
        #expect(executors(JSONLines.parse(capture.standardOutput)) == expected)
    }

    @Test("the container-demo binary's async main lets the main actor run: main-actor services are built")
    func binary() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("main.json", Self.config)
        let child = try DemoChild(["--config", config, "--trace", "jsonl", "--data-dir", folder.path], in: folder.path)
        defer { child.stop() }
        do {
            try await child.exited.wait(timeout: .seconds(60), "the demo to end")
        } catch {
            Issue.record("the demo did not end; stderr: \(child.standardError)")
            throw error
        }
        try await child.output.waitForEnd(timeout: .seconds(30))
        #expect(child.exitStatus == 0, "\(child.standardError)")
        #expect(executors(JSONLines.parse(child.output.lines.joined(separator: "\n"))) == expected)
    }
}
