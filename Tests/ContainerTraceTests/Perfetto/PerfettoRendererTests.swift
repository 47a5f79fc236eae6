import Container
import ContainerTrace
import Foundation
import TestSupport
import Testing

@Suite("Perfetto (Chrome trace JSON) renderer", .timeLimit(.minutes(1)))
struct PerfettoRendererTests {
    /// Parses the renderer's output and checks the format's rules and its agreement with `events`.
    static func expectValid(
        _ events: [TraceEvent], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [[String: Any]] {
        let text = PerfettoRenderer().render(events)
        guard let chrome = ChromeTraceChecks.parse(text, sourceLocation: sourceLocation) else { return [] }
        ChromeTraceChecks.expectWellFormed(chrome, sourceLocation: sourceLocation)
        ChromeTraceChecks.expectMatches(chrome, events: events, sourceLocation: sourceLocation)
        return chrome
    }

    static func spans(_ chrome: [[String: Any]], category: String) -> [[String: Any]] {
        chrome.filter { $0["ph"] as? String == "X" && $0["cat"] as? String == category }
    }

    static func args(_ event: [String: Any]) -> [String: Any] { event["args"] as? [String: Any] ?? [:] }

    @Test("a real traced run: valid JSON, spans nest, one span per node run and per wait, one track per caller")
    func realRun() async throws {
        let (events, _) = try await RealRun.run()
        let chrome = Self.expectValid(events)
        let builds = Self.spans(chrome, category: "build").map { Self.args($0)["result"] as? String ?? "" }
        #expect(builds.contains("failed") && builds.contains("published") && builds.contains("cancelled"))
        let outcomes = Self.spans(chrome, category: "node").map { Self.args($0)["outcome"] as? String ?? "" }
        #expect(outcomes.contains("cancelled"), "b was cancelled while running")
        let waits = Self.spans(chrome, category: "caller").map { Self.args($0)["result"] as? String ?? "" }
        #expect(waits.contains("cancelled") && waits.contains("superseded") && waits.contains("snapshot"))
        #expect(chrome.contains { $0["ph"] as? String == "i" && ($0["name"] as? String ?? "").hasPrefix("tornDown") })
    }

    @Test("retries, a failure, a reload and a cancelled build: every run a span, the rest instants")
    func retriesCancellationResets() throws {
        let events = SyntheticTraces.retriesCancellationResets
        let chrome = Self.expectValid(events)
        let nodes = Self.spans(chrome, category: "node")
        // configuration, database, session (attempt 1), session and feed (attempt 2), session (generation 2).
        #expect(nodes.count == 6)
        let failed = try #require(nodes.first { Self.args($0)["outcome"] as? String == "failed" })
        #expect(Self.args(failed)["failure"] as? String == "transient")
        #expect(Self.args(failed)["error"] as? String == "token \"refresh\" timed out\n(503)", "escaped and read back")
        #expect(Self.args(failed)["build"] as? String == "g1 a1")
        let instants = chrome.filter { $0["ph"] as? String == "i" }.map { $0["name"] as? String ?? "" }
        #expect(instants.contains("retry 1") && instants.contains("skipped") && instants.contains("reused"))
        #expect(instants.contains("cancelled before start"))
        #expect(instants.contains("reload g1 → g2") && instants.contains("reset g2 → g3"))
        let skipped = try #require(chrome.first { $0["name"] as? String == "skipped" })
        #expect(Self.args(skipped)["because"] as? [String] == ["session"])
        let reload = try #require(chrome.first { $0["name"] as? String == "reload g1 → g2" })
        #expect(Self.args(reload)["changed"] as? [String] == ["session"])
        // Without scope instances, the app is the only process.
        let processes = chrome.filter { $0["name"] as? String == "process_name" }
        #expect(processes.count == 1)
    }

    @Test("spans still open when the trace ends close at its last event, marked unfinished")
    func unfinished() throws {
        var script = TraceScript()
        script.add([.callerJoined(caller: "launch", state: .idle), .buildStarted, .nodeStarted(node: "slow")])
        script.add(.scopeOpened, scope: "scene#1")
        let chrome = Self.expectValid(script.events)
        for category in ["build", "node", "caller"] {
            let span = try #require(Self.spans(chrome, category: category).first)
            #expect(Self.args(span)["result"] as? String ?? Self.args(span)["outcome"] as? String == "unfinished")
        }
        let scope = try #require(Self.spans(chrome, category: "scope").first)
        #expect(Self.args(scope)["closed"] as? Bool == false)
    }

    @Test("a build that publishes twice (a joined request answered later) is one span; its nodes lie inside it")
    func publishedTwice() throws {
        var script = TraceScript()
        script.add([
            .callerJoined(caller: "launch", state: .idle), .buildStarted, .nodeStarted(node: "a"),
            .callerJoined(caller: "push", state: .running), .nodeStarted(node: "b"),
            .nodeSucceeded(node: "a", duration: .milliseconds(1)), .snapshotPublished(services: 1),
            .callerResumed(caller: "launch", result: .snapshot),
            .nodeSucceeded(node: "b", duration: .milliseconds(2)), .snapshotPublished(services: 2),
            .callerResumed(caller: "push", result: .snapshot),
        ])
        let chrome = Self.expectValid(script.events)
        let builds = Self.spans(chrome, category: "build")
        #expect(builds.count == 1)
        #expect(Self.args(try #require(builds.first))["services"] as? Int == 2)
        let instants = chrome.filter { $0["ph"] as? String == "i" }.map { $0["name"] as? String ?? "" }
        #expect(instants.contains("published"), "the first publication becomes an instant")
    }

    @Test("a publication after its build ended, with nothing of the build between, does not stretch the build")
    func publishedAfterTheBuild() throws {
        var script = TraceScript()
        script.add([
            .callerJoined(caller: "launch", state: .idle), .buildStarted, .nodeStarted(node: "a"),
            .nodeSucceeded(node: "a", duration: .milliseconds(1)), .snapshotPublished(services: 1),
            .callerResumed(caller: "launch", result: .snapshot),
        ])
        // Five seconds later, a request the build's values answer publishes anew (same attempt).
        script.add(.callerJoined(caller: "late", state: .ready), step: 5_000_000)
        script.add(.snapshotPublished(services: 1))
        let chrome = PerfettoRenderer().render(script.events)
        let parsed = try #require(ChromeTraceChecks.parse(chrome))
        let builds = Self.spans(parsed, category: "build")
        let first = try #require(builds.first { ($0["dur"] as? Double ?? 0) > 0 })
        #expect((first["dur"] as? Double ?? .infinity) < 1_000_000, "the build's span ends at its end, not 5 s later")
    }

    @Test("concurrent waits of one caller name go to separate lanes, so the thread's spans still nest")
    func sameNameCallers() throws {
        var script = TraceScript()
        script.add([.callerJoined(caller: "worker", state: .idle), .buildStarted])
        script.add(.callerJoined(caller: "worker", state: .running))
        script.add([.snapshotPublished(services: 0), .callerResumed(caller: "worker", result: .snapshot)])
        script.add(.callerResumed(caller: "worker", result: .snapshot))
        let chrome = Self.expectValid(script.events)
        let threads = chrome.filter { $0["name"] as? String == "thread_name" }.compactMap {
            Self.args($0)["name"] as? String
        }
        #expect(threads.contains("caller worker") && threads.contains("caller worker (2)"))
    }

    @Test("scope instances: a process each, beside the app's; their spans nest and match their events")
    func scopes() throws {
        let events = SyntheticTraces.mixedScopes
        let chrome = Self.expectValid(events)
        let processes = chrome.filter { $0["name"] as? String == "process_name" }
            .compactMap { Self.args($0)["name"] as? String }
        #expect(processes == ["container"] + SyntheticTraces.instances.map { "container · scope \($0)" })
        let pids = Set(chrome.compactMap { $0["pid"] as? Int })
        #expect(pids.count == 4)
        // window-1 was opened and closed: its life is one span; window-2 and the push stay open.
        let lives = Self.spans(chrome, category: "scope").map { Self.args($0)["closed"] as? Bool }
        #expect(lives.count { $0 == true } == 1 && lives.count { $0 == false } == 2)
        let window2 = try #require(
            chrome.first { Self.args($0)["name"] as? String == "container · scope scene#window-2" })
        let builds = Self.spans(chrome, category: "build").filter { $0["pid"] as? Int == window2["pid"] as? Int }
        #expect(builds.map { Self.args($0)["result"] as? String } == ["failed", "published"])
    }

    @Test("several runs in one file: processes numbered on, named after their run")
    func severalRuns() throws {
        let text = PerfettoRenderer().render(runs: [
            (name: "first", events: SyntheticTraces.retriesCancellationResets),
            (name: "second", events: SyntheticTraces.mixedScopes),
        ])
        let chrome = try #require(ChromeTraceChecks.parse(text))
        ChromeTraceChecks.expectWellFormed(chrome)
        let names = chrome.filter { $0["name"] as? String == "process_name" }.compactMap {
            Self.args($0)["name"] as? String
        }
        #expect(names.first == "first" && names.dropFirst().first == "second" && names.count == 5)
        #expect(Set(chrome.compactMap { $0["pid"] as? Int }) == [1, 2, 3, 4, 5])
    }

    @Test("an empty trace is still a valid, empty document")
    func empty() throws {
        let chrome = try #require(ChromeTraceChecks.parse(PerfettoRenderer().render([TraceEvent]())))
        #expect(chrome.isEmpty)
    }
}
