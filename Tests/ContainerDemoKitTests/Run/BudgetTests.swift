import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// Container's AttemptBudget article: `--retries N` is the attempt budget: at most 1 + N builds per generation, however
/// many callers retry; the config's `policy.maxAttempts` holds when `--retries` is not given.
@Suite("--retries is the attempt budget", .timeLimit(.minutes(1)))
struct BudgetTests {
    private func run(_ arguments: [String]) async -> (status: Int32, events: [[String: Any]], err: String) {
        let capture = CapturedOutput()
        let status = await DemoCommand.main(arguments + ["--trace", "jsonl"], output: capture.output())
        return (status, JSONLines.parse(capture.standardOutput), capture.standardError)
    }

    private func builds(_ events: [[String: Any]]) -> Int {
        events.filter { $0["event"] as? String == "build.started" }.count
    }

    /// A config whose `b` fails transiently on every run (`policy` is spliced in as given).
    private func alwaysTransient(_ folder: TemporaryFolder, policy: String = "") throws -> String {
        try folder.write(
            "always.json",
            """
            { "version": 1, \(policy) "services": [
              { "name": "a", "provider": "simulated", "options": { "durationMs": 1 } },
              { "name": "b", "provider": "simulated", "dependsOn": ["a"], "options": { "durationMs": 2, "outcomes": ["transient"] } }
            ] }
            """)
    }

    @Test("--callers 10 --retries 1 against an always-transient node: exactly 2 builds, every time")
    func manyCallersOneRetry() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try alwaysTransient(folder)
        for _ in 0..<10 {
            let result = await run(["--config", config, "--callers", "10", "--retries", "1", "--data-dir", folder.path])
            #expect(result.status == 1)
            #expect(builds(result.events) == 2, "\(result.err)")
            let failed = result.events.filter { $0["event"] as? String == "build.failed" }
            #expect(failed.count == 2)
            #expect(failed.last?["exhausted"] as? Bool == true, "the second build used the last attempt")
            // Every caller ends with the budget used up, none with an earlier failure.
            #expect(result.err.components(separatedBy: "the last its attempt budget allows").count - 1 == 10)
        }
    }

    @Test("100 callers with --retries 4: at most 5 builds, and the callers that came late build nothing")
    func budgetHoldsForHundredCallers() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try alwaysTransient(folder)
        let result = await run(["--config", config, "--callers", "100", "--retries", "4", "--data-dir", folder.path])
        #expect(result.status == 1)
        #expect(builds(result.events) == 5)
        let joins = result.events.filter { $0["event"] as? String == "caller.joined" }
        #expect(joins.filter { $0["state"] as? String == "idle" }.count == 5, "one caller starts each build")
    }

    @Test("without --retries the config's policy.maxAttempts is the budget; --retries overrides it")
    func configPolicyIsTheDefault() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try alwaysTransient(folder, policy: #""policy": { "maxAttempts": 3 },"#)
        let fromConfig = await run(["--config", config, "--callers", "8", "--data-dir", folder.path])
        #expect(fromConfig.status == 1)
        #expect(builds(fromConfig.events) == 3)
        let overridden = await run(["--config", config, "--callers", "8", "--retries", "0", "--data-dir", folder.path])
        #expect(builds(overridden.events) == 1)
    }

    @Test("without --retries or policy.maxAttempts: one build (the budget is never unlimited)")
    func defaultIsOneBuild() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try alwaysTransient(folder)
        let result = await run(["--config", config, "--callers", "8", "--data-dir", folder.path])
        #expect(result.status == 1)
        #expect(builds(result.events) == 1)
    }

    @Test("with policy.retryAfterMs the callers back off: the budget's builds, then it ends")
    func retryAfterSpacesTheAttempts() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try alwaysTransient(folder, policy: #""policy": { "maxAttempts": 3, "retryAfterMs": 5 },"#)
        let result = await run(["--config", config, "--callers", "20", "--data-dir", folder.path])
        #expect(result.status == 1)
        #expect(builds(result.events) == 3)
        // A caller that asks before the next attempt is allowed gets the failure without a build.
        for join in result.events where join["event"] as? String == "caller.joined" {
            #expect(["idle", "running", "waiting", "failed", "ready"].contains(join["state"] as? String ?? ""))
        }
    }

    @Test("a failure that clears within the budget publishes: 2 transient runs, --retries 2")
    func recoversWithinTheBudget() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "twice.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["transient", "transient", "ok"])]))
        let result = await run(["--config", config, "--callers", "10", "--retries", "2", "--data-dir", folder.path])
        #expect(result.status == 0, "\(result.err)")
        #expect(builds(result.events) == 3)
    }
}
