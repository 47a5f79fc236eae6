import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// `Configs/app.json` with an overlay whose database cannot be opened (a permanent failure): the
/// `scene` and `push` entry points run in scope instances whose builds first join the failed app build.
@Suite("Demo contract: scope instances after a failed app build", .timeLimit(.minutes(1)))
struct DemoContractScopeFailureTraceTests {
    private func run() async throws -> DemoContractRun.Run {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let overlay = try fixture.write(
            "bad-database.json",
            #"{"version":1,"overlay":true,"services":[{"name":"database","options":{"path":"/nonexistent/dir/x.sqlite"}}]}"#
        )
        let capture = CapturedOutput()
        let status = await DemoCommand.main(
            [
                "--config", fixture.appConfig, "--overlay", overlay, "--data-dir", fixture.directory.path, "--trace",
                "jsonl",
            ],
            output: capture.output())
        return DemoContractRun.Run(status: status, out: capture.standardOutput, err: capture.standardError)
    }

    /// DESIGN.md §3.3: "`skipped(because: [failed upstream nodes])`: never ran, an upstream node failed";
    /// docs/trace-format.md: `node.skipped` ... "the failed upstream nodes `because`".
    @Test("a scoped node skipped after the app build failed names only failed upstream nodes")
    func scopedSkipNamesOnlyFailedNodes() async throws {
        let result = try await run()
        #expect(result.status == 1, "\(result.err)")
        let failed = Set(result.events("node.failed").compactMap { $0["node"] as? String })
        #expect(failed == ["database"])
        let router = try #require(
            result.events("node.skipped").first { $0["node"] as? String == "sceneRouter" }, "\(result.out)")
        let because = router["because"] as? [String] ?? []
        #expect(!because.contains("configuration"), "configuration succeeded, yet it is named: \(because)")
        #expect(because.allSatisfy { failed.contains($0) }, "because \(because) names nodes that did not fail")
    }

    /// DESIGN.md §9: "Opening a scope never assumes the app is ready: its build first joins (or starts) the
    /// app build, and a failed app build fails the scope's callers with that same failure"; §3.4: "The
    /// build's own failure is permanent if any node failed permanently, otherwise transient".
    @Test("a scope instance's build that failed because the app failed permanently is traced as permanent")
    func scopeBuildFailureHasTheAppsClassification() async throws {
        let result = try await run()
        let app = result.events("build.failed").filter { $0["scope"] == nil }
        #expect(app.first?["failure"] as? String == "permanent")
        let scoped = result.events("build.failed").filter { $0["scope"] != nil }
        #expect(scoped.count == 2, "\(result.out)")
        for event in scoped {
            #expect(event["failure"] as? String == "permanent", "\(event)")
        }
    }
}
