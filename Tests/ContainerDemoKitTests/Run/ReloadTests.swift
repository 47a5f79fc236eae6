import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// `container-demo --config A --reload B` (Container's Reload article): A starts, B is reloaded, only what changed
/// is rebuilt; an invalid B changes nothing and exits 2.
@Suite("--reload", .timeLimit(.minutes(1)))
struct ReloadTests {
    private func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let capture = CapturedOutput()
        let status = await DemoCommand.main(arguments, output: capture.output())
        return (status, capture.standardOutput, capture.standardError)
    }

    /// A: a -> b -> c and x; B: b's duration changed, x removed, y added.
    private func pair(_ folder: TemporaryFolder) throws -> (old: String, new: String) {
        let old = try folder.write(
            "a.json",
            SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["ok"]), ("c", ["b"], ["ok"]), ("x", [], ["ok"])]))
        let new = try folder.write(
            "b.json",
            SimulatedConfigs.config([
                ("a", [], ["ok"]), ("b", ["a"], ["ok"]), ("c", ["b"], ["ok"]), ("y", ["a"], ["ok"]),
            ])
            .replacingOccurrences(
                of: #""name": "b", "provider": "simulated", "dependsOn": ["a"], "options": { "durationMs": 1"#,
                with: #""name": "b", "provider": "simulated", "dependsOn": ["a"], "options": { "durationMs": 2"#))
        return (old, new)
    }

    @Test("the trace has generation.reset with reason reload; only the changed, added and dependent nodes build")
    func reloadRebuildsWhatChanged() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (old, new) = try pair(folder)
        let result = await run(["--config", old, "--reload", new, "--trace", "jsonl", "--data-dir", folder.path])
        #expect(result.status == 0, "\(result.err)")
        let events = JSONLines.parse(result.out)
        let reset = try #require(events.first { $0["event"] as? String == "generation.reset" })
        #expect(reset["reason"] as? String == "reload")
        #expect(reset["added"] as? [String] == ["y"])
        #expect(reset["removed"] as? [String] == ["x"])
        #expect(reset["changed"] as? [String] == ["b"])
        let second = events.filter { $0["gen"] as? Int == 2 }
        let started = Set(
            second.filter { $0["event"] as? String == "node.started" }.compactMap { $0["node"] as? String })
        let reused = Set(second.filter { $0["event"] as? String == "node.reused" }.compactMap { $0["node"] as? String })
        #expect(started == ["b", "c", "y"])
        #expect(reused == ["a"])
        #expect(second.contains { $0["event"] as? String == "snapshot.published" })
        // The reload report goes with the commentary (standard error for a machine-readable trace).
        #expect(result.err.contains("added: y"))
        #expect(result.err.contains("removed: x"))
        #expect(result.err.contains("changed: b"))
        #expect(result.err.contains("rebuilt (changed, added and their dependents): b, c, y"))
        #expect(result.err.contains("carried over (same values, not rebuilt, not torn down): a"))
        #expect(!result.err.contains("✗"), "every check holds: \(result.err)")
    }

    @Test("an invalid new config: its errors, exit 2, and the old snapshot still published")
    func invalidNewConfig() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (old, _) = try pair(folder)
        let broken = try folder.write(
            "broken.json", #"{ "version": 1, "services": [{ "name": "a", "provider": "simulatd" }] }"#)
        let result = await run(["--config", old, "--reload", broken, "--trace", "jsonl", "--data-dir", folder.path])
        #expect(result.status == 2)
        #expect(result.err.contains("unknown provider 'simulatd'; did you mean 'simulated'?"))
        #expect(
            result.err.contains(
                "\(broken) is invalid; nothing was reloaded: generation 1's snapshot of \(old) "
                    + "is still published"))
        let events = JSONLines.parse(result.out)
        #expect(!events.contains { $0["event"] as? String == "generation.reset" })
        #expect(events.filter { $0["event"] as? String == "snapshot.published" }.count == 1)
    }

    @Test("the text run prints the reload report with the timeline")
    func textReport() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (old, new) = try pair(folder)
        let result = await run(["--config", old, "--reload", new, "--data-dir", folder.path])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("=== reload: \(old) → \(new) ==="))
        #expect(result.out.contains("torn down, in order: none"), "simulated values have no teardown")
        #expect(result.out.contains("generation 1 → 2"))
    }

    @Test(
        "--reload goes with a config run only",
        arguments: [
            (["--reload", "b.json", "--scenario", "logout"], "the 'logout' story does not take one"),
            (["--scenario", "reload", "--config", "a.json"], "needs the new version of the config"),
            (["--reload="], "--reload needs a file path"),
        ])
    func usage(arguments: [String], message: String) {
        #expect {
            try DemoCommand.parse(arguments)
        } throws: { error in
            (error as? UsageError)?.message.contains(message) == true
        }
    }

    @Test("--reload turns the cold start into the reload run; --scenario reload alone uses Configs/reload/")
    func parsing() throws {
        let options = try DemoCommand.parse(["--config", "a.json", "--reload", "b.json"])
        #expect(options.scenario == .reload)
        #expect(options.reloadPath == "b.json")
        #expect(try DemoCommand.parse(["--scenario", "reload"]).reloadPath == nil)
        #expect(try DemoCommand.parse(["--status"]).showStatus)
        #expect(try DemoCommand.parse(["--data-dir", "d", "--scenario", "scopes"]).dataDirectory == "d")
    }
}
