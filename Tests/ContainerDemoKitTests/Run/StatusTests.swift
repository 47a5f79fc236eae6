import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// `--status`: `container.status` as JSON after the run, on standard output after a text trace,
/// on standard error when standard output holds a machine-readable trace.
@Suite("--status prints container.status as JSON", .timeLimit(.minutes(1)))
struct StatusTests {
    static let heading = "container.status at the end of the run (JSON):"

    /// The JSON object after the last status heading of `text`.
    private func status(in text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let parts = text.components(separatedBy: Self.heading + "\n")
        let json = try #require(
            parts.count >= 2 ? parts.last : nil, "no status heading", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        return try #require(object as? [String: Any], sourceLocation: sourceLocation)
    }

    @Test("a published run: state ready, generation 1, every node with its outcome; text: standard output")
    func published() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("ok.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["ok"])]))
        let capture = CapturedOutput()
        let code = await DemoCommand.main(
            ["--config", config, "--status", "--data-dir", folder.path], output: capture.output())
        #expect(code == 0)
        #expect(!capture.standardError.contains(Self.heading))
        let status = try status(in: capture.standardOutput)
        #expect(status["state"] as? String == "ready")
        #expect(status["generation"] as? Int == 1)
        #expect(status["attempt"] as? Int == 1)
        #expect(status["lastFailure"] is NSNull)
        #expect(status["nextAttemptAtMs"] is NSNull)
        #expect(status["openScopes"] as? [String] == [])
        #expect(status["waitingCallers"] as? Int == 0)
        #expect((status["unreportedTeardowns"] as? [Any])?.isEmpty == true)
        #expect(status["inputsNotSupplied"] as? [String] == [])
        let build = try #require(status["lastBuild"] as? [String: Any])
        #expect(build["result"] as? String == "succeeded")
        let nodes = try #require(build["nodes"] as? [[String: Any]])
        #expect(nodes.map { $0["name"] as? String } == ["a", "b"])
        #expect(nodes.allSatisfy { $0["outcome"] as? String == "succeeded" && $0["runs"] as? Int == 1 })
        let services = try #require(status["services"] as? [[String: String]])
        #expect(
            services == [
                ["name": "a", "start": "eager", "state": "built"], ["name": "b", "start": "eager", "state": "built"],
            ])
    }

    @Test("a budget used up: state failed, attemptsExhausted, the failed and skipped nodes; jsonl: standard error")
    func exhausted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "fail.json",
            SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["transient"]), ("c", ["b"], ["ok"])]))
        let capture = CapturedOutput()
        let code = await DemoCommand.main(
            ["--config", config, "--status", "--retries", "1", "--trace", "jsonl", "--data-dir", folder.path],
            output: capture.output())
        #expect(code == 1)
        let lines = capture.standardOutput.split(separator: "\n")
        #expect(JSONLines.parse(capture.standardOutput).count == lines.count, "standard output stays JSON Lines")
        let status = try status(in: capture.standardError)
        #expect(status["state"] as? String == "failed")
        #expect(status["attempt"] as? Int == 2)
        let failure = try #require(status["lastFailure"] as? [String: Any])
        #expect(failure["code"] as? String == "attemptsExhausted")
        #expect((failure["message"] as? String)?.contains("2 attempts") == true)
        let nodes = try #require((status["lastBuild"] as? [String: Any])?["nodes"] as? [[String: Any]])
        let byName = Dictionary(
            uniqueKeysWithValues: nodes.compactMap { node in
                (node["name"] as? String).map { ($0, node) }
            })
        #expect(byName["a"]?["outcome"] as? String == "reused")
        #expect(byName["b"]?["outcome"] as? String == "failed")
        #expect(byName["b"]?["failure"] as? String == "transient")
        #expect(byName["c"]?["outcome"] as? String == "skipped")
        let services = try #require(status["services"] as? [[String: String]])
        // `a`'s value was let go: start() can never succeed in this generation.
        #expect(services.map { $0["state"] } == ["notRequested", "failed", "skipped"])
        #expect(byName["c"]?["because"] as? [String] == ["b"])
    }

    @Test("the scopes story's status lists its open scope instances")
    func openScopes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let capture = CapturedOutput()
        let code = await DemoCommand.main(
            [
                "--scenario", "scopes", "--config", RepositoryPaths.config("app.json"), "--status", "--data-dir",
                folder.path,
            ],
            output: capture.output())
        #expect(code == 0, "\(capture.standardError)")
        let status = try status(in: capture.standardOutput)
        #expect(status["openScopes"] as? [String] == ["scene#window-1", "scene#window-2", "push#notification-42"])
        #expect(status["generation"] as? Int == 2)
    }

    @Test("an input nobody supplied is listed, and so is the service that waits for it")
    func inputsNotSupplied() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "input.json",
            """
            { "version": 1, "services": [
              { "name": "a", "provider": "simulated" },
              { "name": "token", "provider": "input", "options": { "type": "string" } },
              { "name": "registration", "provider": "simulated", "dependsOn": ["token"], "start": "lazy" }
            ] }
            """)
        let capture = CapturedOutput()
        let code = await DemoCommand.main(
            ["--config", config, "--status", "--callers", "1", "--data-dir", folder.path], output: capture.output())
        #expect(code == 0, "\(capture.standardError)")
        let status = try status(in: capture.standardOutput)
        #expect(status["inputsNotSupplied"] as? [String] == ["token"])
        let services = try #require(status["services"] as? [[String: String]])
        #expect(services.map { $0["state"] } == ["built", "notRequested", "notRequested"])
    }

    @Test("a secret in a node's error never reaches the status")
    func redacted() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The sqlite path is secret; the folder does not exist, so opening it fails and says where.
        let secret = folder.path + "/no-such-folder/k7Qz9vX2pL.sqlite"
        let config = try folder.write(
            "secret.json",
            """
            { "version": 1, "services": [
              { "name": "database", "provider": "sqlite", "options": { "path": "\(secret)" }, "secretOptions": ["path"] }
            ] }
            """)
        let capture = CapturedOutput()
        _ = await DemoCommand.main(
            ["--config", config, "--status", "--callers", "1", "--data-dir", folder.path], output: capture.output())
        let status = try status(in: capture.standardOutput)
        #expect(status["state"] as? String == "failed")
        let text = capture.standardOutput + capture.standardError
        #expect(!text.contains("k7Qz9vX2pL"))
    }
}
