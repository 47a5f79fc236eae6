import ContainerDemoKit
import Foundation
import TestSupport
import Testing

@Suite("Demo contract: main-actor priorities", .timeLimit(.minutes(1)))
struct DemoContractMainActorPriorityTests {
    /// Configs/README.md, service keys: `priority` is "the lowest priority the provider runs at"; TraceFormat.md
    /// (Main-actor services and priorities): "Each `node.started` says the priority the node runs at: its
    /// declared one ... raised to that of the requests waiting for it" (DESIGN.md §13.3).
    @Test("a main-actor service declared high runs at high even when the graph has another main-actor service")
    func mainActorDeclaredPriorityIsKept() async throws {
        let config = """
            {"version":1,"services":[
             {"name":"m2","provider":"simulated","isolation":"main","options":{"durationMs":30}},
             {"name":"y","provider":"simulated","options":{"durationMs":5}},
             {"name":"m1","provider":"simulated","isolation":"main","priority":"high","dependsOn":["y"]}
            ]}
            """
        let run = try await DemoContractRun.run(config: config, ["--trace", "jsonl", "--callers", "1"])
        #expect(run.status == 0, "\(run.err)")
        let started = run.events("node.started").first { $0["node"] as? String == "m1" }
        #expect(started?["executor"] as? String == "main")
        #expect(started?["priority"] as? String == "high", "m1 declares high: \(run.out)")
    }
}
