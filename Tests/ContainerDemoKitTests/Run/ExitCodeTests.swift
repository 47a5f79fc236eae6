import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// The README's exit statuses: with --config, 0 when a snapshot was published, 1 when the build failed,
/// 2 for an invalid config or usage (config errors listed in full on standard error).
@Suite("Exit codes of config runs", .timeLimit(.minutes(1)))
struct ExitCodeTests {
    private func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let capture = CapturedOutput()
        let status = await DemoCommand.main(arguments, output: capture.output())
        return (status, capture.standardOutput, capture.standardError)
    }

    @Test("a valid config publishes: 0; without entry points it races 4 generic callers")
    func valid() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "ok.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["ok"]), ("c", ["a"], ["ok"])]))
        let result = await run(["--config", config])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("published 3 services"))
        #expect(result.out.contains("shared by 4 callers"))
        #expect(result.out.contains("caller-4"))
        #expect(!result.out.contains("\u{1B}["), "no colours when not asked")
    }

    @Test("a config whose build fails permanently: 1, and the failure is named on standard error")
    func permanentFailure() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "fail.json",
            SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["permanent"]), ("c", ["b"], ["ok"])]))
        let result = await run(["--config", config, "--retries", "3", "--trace", "jsonl"])
        #expect(result.status == 1)
        #expect(result.err.contains("the build failed (permanent failure of b)"))
        let events = JSONLines.parse(result.out)
        #expect(
            events.filter { $0["event"] as? String == "build.started" }.count == 1, "permanent: retries do not rebuild")
        #expect(events.contains { $0["event"] as? String == "node.skipped" && $0["node"] as? String == "c" })
    }

    @Test("--retries N allows at most 1 + N attempts, the same exit status every run, however many callers")
    func retriesAreDeterministic() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // b fails transiently in its first three runs: attempts 1-3 fail, attempt 4 succeeds.
        let config = try folder.write(
            "thrice.json",
            SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["transient", "transient", "transient", "ok"])]))
        for _ in 0..<5 {
            let short = await run(["--config", config, "--retries", "2", "--callers", "30", "--trace", "jsonl"])
            #expect(short.status == 1, "\(short.err)")
            let attempts = JSONLines.parse(short.out).filter { $0["event"] as? String == "build.started" }
            #expect(attempts.count == 3)
            let enough = await run(["--config", config, "--retries", "3", "--callers", "30", "--trace", "jsonl"])
            #expect(enough.status == 0, "\(enough.err)")
        }
    }

    @Test("a config without entry points and --callers 0 is a usage error: 2")
    func nobodyAsks() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("lonely.json", SimulatedConfigs.config([("a", [], ["ok"])]))
        let result = await run(["--config", config, "--callers", "0"])
        #expect(result.status == 2)
        #expect(result.err.contains("lists no entry points and --callers is 0"))
    }

    @Test("a config run ends with a shutdown: values are torn down in the trace after publication")
    func configRunShutsDown() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("ok.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["ok"])]))
        let result = await run(["--config", config, "--trace", "jsonl"])
        #expect(result.status == 0)
        let names = JSONLines.parse(result.out).compactMap { $0["event"] as? String }
        let published = try #require(names.firstIndex(of: "snapshot.published"))
        let shutdown = try #require(names.firstIndex(of: "container.shutdown"))
        #expect(published < shutdown)
    }

    @Test("a transient failure: 1 without retries, 0 with --retries 1 (and the retry reuses a)")
    func transientFailure() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "flaky.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["transient", "ok"])]))
        let without = await run(["--config", config])
        #expect(without.status == 1)
        #expect(without.err.contains("transient"))

        let with = await run(["--config", config, "--retries", "1", "--trace", "jsonl"])
        #expect(with.status == 0, "\(with.err)")
        let events = JSONLines.parse(with.out)
        let builds = events.filter { $0["event"] as? String == "build.started" }.compactMap { $0["attempt"] as? Int }
        #expect(builds == [1, 2])
        #expect(
            events.contains {
                $0["event"] as? String == "node.reused" && $0["node"] as? String == "a" && $0["attempt"] as? Int == 2
            })
    }

    @Test("a broken config: 2, and every problem is listed on standard error")
    func brokenConfig() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "broken.json",
            """
            {
              "version": 1,
              "services": [
                { "name": "database", "provider": "sqlit" },
                { "name": "session", "provider": "simulated", "dependsOn": ["databse"] },
                { "name": "x", "provider": "simulated", "dependsOn": ["y"] },
                { "name": "y", "provider": "simulated", "dependsOn": ["x"] }
              ]
            }
            """)
        let result = await run(["--config", config])
        #expect(result.status == 2)
        #expect(result.out.isEmpty, "nothing runs")
        #expect(result.err.contains("sqlit"))
        #expect(result.err.contains("databse"))
        #expect(result.err.contains("x -> y -> x") || result.err.contains("y -> x -> y"))
    }

    @Test("a missing config file: 2")
    func missingConfig() async {
        let result = await run(["--config", "/nonexistent/dir/app.json"])
        #expect(result.status == 2)
        #expect(result.err.contains("app.json"))
    }

    @Test("bad usage: 2", arguments: [["--trace", "png"], ["--callers"], ["--bogus"], ["stray"]])
    func badUsage(arguments: [String]) async {
        let result = await run(arguments)
        #expect(result.status == 2)
        #expect(result.err.contains("container-demo --help"))
    }

    @Test("--output FILE: the trace goes to the file, a note to standard output")
    func outputFile() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("ok.json", SimulatedConfigs.config([("a", [], ["ok"])]))
        let file = folder.path + "/trace.jsonl"
        let result = await run(["--config", config, "--trace", "jsonl", "--output", file])
        #expect(result.status == 0)
        #expect(result.out.contains("written to \(file)"))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let events = JSONLines.parse(text)
        #expect(events.contains { $0["event"] as? String == "snapshot.published" })

        let unwritable = await run(["--config", config, "--output", folder.path + "/no/such/dir/t.txt"])
        #expect(unwritable.status == 2)
        #expect(unwritable.err.contains("its folder '\(folder.path)/no/such/dir' does not exist"))
        let intoAFolder = await run(["--config", config, "--output", folder.path])
        #expect(intoAFolder.status == 2)
        #expect(intoAFolder.err.contains("it is a folder; give a file's path, e.g. \(folder.path)/trace.txt"))
    }

    @Test("--scenario all --overlay: the overlay changes the cold start's config only, and every story runs")
    func allWithAnOverlay() async throws {
        let data = try TemporaryFolder()
        defer { data.remove() }
        // The shipped test overlay is for Configs/app.json: launch.json's simulated database
        // takes no SQLite options, so applying it there stopped the run at that story.
        let result = await run([
            "--scenario", "all", "--overlay", RepositoryPaths.config("overlays/test.json"), "--data-dir", data.path,
        ])
        #expect(result.status == 0, "\(result.err.prefix(400))")
        #expect(result.out.contains("=== accounts"), "the last story ran")
    }

    @Test("control characters of a path or an argument are written as escapes: one line each, no terminal codes")
    func controlCharactersAreEscaped() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let evil = "evil\u{1B}[31mRED\nname"
        let broken = try folder.write(evil + ".json", "{ not json")
        let config = await run(["--config", broken])
        #expect(config.status == 2)
        let scenario = await run(["--scenario", "bad\u{1B}[2J"])
        #expect(scenario.status == 2)
        for text in [config.err, scenario.err] {
            #expect(!text.unicodeScalars.contains { $0.value == 0x1B }, "a raw escape: \(text.debugDescription)")
            #expect(text.contains("\\u{1B}"), "\(text)")
        }
        // The file name's newline does not split its issue's line.
        #expect(config.err.split(separator: "\n").contains { $0.contains("evil\\u{1B}[31mRED\\u{A}name.json") })
    }

    @Test("an --output that cannot be written stops the demo before anything runs")
    func unwritableOutputStopsFirst() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // A failing build would exit with 1 after its run: the refusal (2) comes first, alone.
        let config = try folder.write("fail.json", SimulatedConfigs.config([("a", [], ["permanent"])]))
        let result = await run(["--config", config, "--trace", "jsonl", "--output", folder.path + "/no/such/dir/t.txt"])
        #expect(result.status == 2)
        #expect(!result.out.contains("What the callers did"), "the run happened before the refusal")
        #expect(!result.err.contains("What the callers did"), "the run happened before the refusal")
    }

    @Test("--output writes through a symbolic link to its target, and keeps the link")
    func outputThroughASymbolicLink() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("ok.json", SimulatedConfigs.config([("a", [], ["ok"])]))
        let target = try folder.write("target.jsonl", "an older trace, longer than nothing\n")
        let link = folder.path + "/link.jsonl"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = await run(["--config", config, "--trace", "jsonl", "--output", link])
        #expect(result.status == 0, "\(result.err)")
        let kind = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
        #expect(kind == .typeSymbolicLink)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.contains("snapshot.published") && !written.contains("an older trace"))
    }

    @Test("a config error keeps an existing --output file as it was, and leaves no new one")
    func configErrorLosesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let broken = try folder.write("broken.json", "{ not json")
        let kept = try folder.write("kept.jsonl", "the last good trace\n")
        let keptResult = await run(["--config", broken, "--output", kept])
        #expect(keptResult.status == 2)
        #expect(try String(contentsOfFile: kept, encoding: .utf8) == "the last good trace\n")
        let fresh = folder.path + "/fresh.jsonl"
        let freshResult = await run(["--config", broken, "--output", fresh])
        #expect(freshResult.status == 2)
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }

    @Test("dot, mermaid and gantt of a config run keep standard output to the diagram")
    func diagramFormats() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("ok.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b b", ["a"], ["ok"])]))
        let dot = await run(["--config", config, "--trace", "dot"])
        #expect(dot.status == 0)
        #expect(dot.out.hasPrefix("digraph"))
        #expect(dot.out.contains("\"a\" -> \"b b\";"))
        let mermaid = await run(["--config", config, "--trace", "mermaid"])
        #expect(mermaid.out.hasPrefix("flowchart LR"))
        #expect(mermaid.out.contains("n0 --> n1"))
        let gantt = await run(["--config", config, "--trace", "gantt"])
        #expect(gantt.out.hasPrefix("gantt"))
        #expect(gantt.err.contains("Checks"))
    }
}
