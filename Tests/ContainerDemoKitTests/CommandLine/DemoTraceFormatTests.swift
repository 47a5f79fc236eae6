import Container
import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// The demo's machine-readable trace formats, checked on real runs of every story.
@Suite("Demo trace formats", .timeLimit(.minutes(2)))
struct DemoTraceFormatTests {
    @Test("jsonl: every line parses and has the documented fields for its event")
    func jsonLines() async {
        for scenario in [DemoScenario.transient, .permanent, .logout, .cancel] {
            let capture = CapturedOutput()
            let status = await runDemo(DemoOptions(trace: .jsonl, scenario: scenario), output: capture.output())
            #expect(status == 0, "\(scenario): \(capture.standardError)")
            let objects = JSONLines.parse(capture.standardOutput)
            #expect(!objects.isEmpty)
            for object in objects { JSONLinesVocabulary.expectDocumented(object) }
            let times = objects.compactMap { $0["t"] as? Double }
            #expect(times == times.sorted(), "t never decreases in \(scenario)")
            // Commentary goes to standard error, keeping standard output pure JSON Lines.
            #expect(capture.standardError.contains("Story"))
        }
    }

    @Test("perfetto: each story is valid Chrome trace JSON whose spans nest, node spans inside their builds")
    func perfetto() async throws {
        for scenario in [DemoScenario.transient, .permanent, .logout, .cancel] {
            let capture = CapturedOutput()
            let status = await runDemo(DemoOptions(trace: .perfetto, scenario: scenario), output: capture.output())
            #expect(status == 0, "\(scenario): \(capture.standardError)")
            let chrome = try #require(ChromeTraceChecks.parse(capture.standardOutput))
            ChromeTraceChecks.expectWellFormed(chrome)
            let nodeRuns = chrome.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == "node" }
            #expect(!nodeRuns.isEmpty, "\(scenario)")
            #expect(capture.standardError.contains("Story"), "commentary goes to standard error")
        }
    }

    @Test("perfetto with --scenario all: one document, a process per story")
    func perfettoAll() async throws {
        let capture = CapturedOutput()
        // A data folder of its own: other tests run the demo's stories at the same time.
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let status = await runDemo(
            DemoOptions(trace: .perfetto, scenario: .all, dataDirectory: folder.path), output: capture.output())
        #expect(status == 0, "\(capture.standardError)")
        let chrome = try #require(ChromeTraceChecks.parse(capture.standardOutput))
        ChromeTraceChecks.expectWellFormed(chrome)
        let processes = chrome.filter { $0["name"] as? String == "process_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        // One process per story, and one per scope instance the cold start (scene and push), the
        // scopes story (two windows and a push) and the accounts story (two accounts, a window in
        // each, a push) open. The cold start's callers open their instances concurrently, so the
        // instances are compared in a fixed order.
        let stories = processes.filter { !$0.contains(" · scope ") }
        #expect(stories == DemoScenario.stories.map { "container (\($0.name))" })
        #expect(
            processes.filter { $0.contains(" · scope ") }.sorted()
                == [
                    "container (cold-start) · scope scene#window-1",
                    "container (cold-start) · scope push#notification-42",
                    "container (scopes) · scope scene#window-1", "container (scopes) · scope scene#window-2",
                    "container (scopes) · scope push#notification-42", "container (accounts) · scope account#ada",
                    "container (accounts) · scope account#grace",
                    "container (accounts) · scope account#ada/scene#window-1",
                    "container (accounts) · scope account#grace/scene#window-2",
                    "container (accounts) · scope account#grace/push#notification-7",
                ].sorted())
    }

    @Test("perfetto is listed in --help and accepted by --trace")
    func perfettoOption() throws {
        #expect(DemoCommand.usage.contains("perfetto (Chrome trace JSON"))
        #expect(try DemoCommand.parse(["--trace", "perfetto"]).trace == .perfetto)
    }
}
