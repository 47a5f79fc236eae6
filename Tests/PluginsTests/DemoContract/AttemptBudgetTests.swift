import ContainerDemoKit
import Foundation
import TestSupport
import Testing

@Suite("Demo contract: the attempt budget of --retries", .timeLimit(.minutes(1)))
struct DemoContractAttemptBudgetTests {
    /// DESIGN.md §7: "`--retries N` (after a transient build failure the callers call `start()` again; the
    /// generation's attempt budget of §11 makes that at most 1 + N builds, however many callers retry)";
    /// §11: "However many callers retry, a generation never gets more builds than its budget";
    /// `container-demo --help`: "(without start policies, optional services or inputs: at most 1 + N builds)".
    /// Here: fail-fast, no start policies, no optional services, no inputs. `x` is cancelled while running
    /// in attempt 2 (when `g` fails fast), and the generation gets a fourth build with --retries 2.
    @Test("--retries 2 on a fail-fast graph without start policies allows at most 3 builds")
    func failFastCancelledRunDoesNotBuyAnExtraBuild() async throws {
        let config = """
            {"version":1,"policy":{"failFast":true},"services":[
             {"name":"slow","provider":"simulated","options":{"durationMs":200}},
             {"name":"f1","provider":"simulated","options":{"outcomes":["transient","ok"]}},
             {"name":"x","provider":"simulated","dependsOn":["f1"],"options":{"durationMs":20,"outcomes":["transient"]}},
             {"name":"g","provider":"simulated","dependsOn":["f1"],"options":{"outcomes":["transient","ok"]}}
            ]}
            """
        let run = try await DemoContractRun.run(
            config: config, ["--trace", "jsonl", "--retries", "2", "--callers", "1"])
        #expect(run.status == 1, "\(run.err)")
        let builds = run.events("build.started")
        #expect(builds.count <= 3, "\(builds.count) builds with --retries 2: \(run.events("build.failed"))")
        let slowRuns = run.events("node.started").filter { $0["node"] as? String == "slow" }
        #expect(slowRuns.count <= 3, "'slow' was tried in \(slowRuns.count) builds")
    }
}
