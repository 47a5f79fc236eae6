import ContainerDemoKit
import Foundation
import TestSupport
import Testing

@Suite("Load", .timeLimit(.minutes(2)))
struct LoadTests {
    @Test("1000 callers on a 200-node random DAG: one build, everyone served, dependencies first")
    func thousandCallers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (text, edges) = SimulatedConfigs.randomDAG(count: 200, seed: 0x5EED)
        let config = try folder.write("dag.json", text)
        let capture = CapturedOutput()
        let status = await DemoCommand.main(
            ["--config", config, "--callers", "1000", "--trace", "jsonl"], output: capture.output())
        #expect(status == 0, "\(capture.standardError)")
        let events = JSONLines.parse(capture.standardOutput)
        func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
        #expect(named("build.started").count == 1)
        #expect(named("snapshot.published").count == 1)
        #expect(named("snapshot.published").first?["services"] as? Int == 200)
        #expect(named("node.succeeded").count == 200)
        #expect(Set(named("caller.joined").compactMap { $0["caller"] as? String }).count == 1_000)
        #expect(named("caller.joined").filter { $0["state"] as? String == "idle" }.count == 1)
        #expect(named("caller.resumed").filter { $0["result"] as? String == "snapshot" }.count == 1_000)
        // Every edge of the generated graph: the dependency succeeded before the dependent started.
        var position: [String: (succeeded: Int, started: Int)] = [:]
        for (index, event) in events.enumerated() {
            guard let node = event["node"] as? String else { continue }
            if event["event"] as? String == "node.started" { position[node, default: (-1, -1)].started = index }
            if event["event"] as? String == "node.succeeded" { position[node, default: (-1, -1)].succeeded = index }
        }
        #expect(!edges.isEmpty)
        for (from, to) in edges {
            let dependency = try #require(position[from])
            let dependent = try #require(position[to])
            #expect(dependency.succeeded >= 0 && dependency.succeeded < dependent.started, "\(from) -> \(to)")
        }
    }
}
