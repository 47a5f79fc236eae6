import Container
import ContainerTesting
import Foundation
import TestSupport
import Testing

@testable import ContainerDemoKit

/// The stories run in-process; their traces are checked against the general rules (the kit's
/// `TraceInvariants`, whose own tests show they catch each broken rule) and the facts each story claims.
@Suite("Stories", .timeLimit(.minutes(1)))
struct ScenarioTests {
    private func expectStoryHeld(_ report: ScenarioReport, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)", sourceLocation: sourceLocation)
        #expect(report.exitCode == 0, sourceLocation: sourceLocation)
        guard let graph = report.graph else {
            Issue.record("no graph", sourceLocation: sourceLocation)
            return
        }
        expectPassed(TraceInvariants.check(report.events, graph: graph), sourceLocation: sourceLocation)
    }

    @Test("cold start: one build shared by every caller, each found idle or running")
    func coldStart() async {
        let report = await ColdStartStory.run(callers: 20, retries: 0)
        expectStoryHeld(report)
        let events = report.events
        #expect(events.named("build.started").count == 1)
        #expect(events.named("snapshot.published").count == 1)
        let joins = events.compactMap {
            if case .callerJoined(let caller, let state, _) = $0.kind { (caller, state) } else { nil }
        }
        #expect(joins.count == 24)
        #expect(joins.filter { $0.1 == .idle }.count == 1)
        #expect(joins.allSatisfy { [.idle, .running, .ready].contains($0.1) })
        let resumed = events.compactMap {
            if case .callerResumed(let caller, .snapshot) = $0.kind { caller } else { nil }
        }
        #expect(Set(resumed) == Set(joins.map(\.0)))
        #expect(report.narrative.count == 24)
    }

    @Test("transient: attempt 2 reuses what succeeded and rebuilds only the failed branch")
    func transient() async {
        let report = await TransientStory.run(callers: 3, retries: 1)
        expectStoryHeld(report)
        let first = report.events.inBuild(1, 1)
        let second = report.events.inBuild(1, 2)
        #expect(first.named("build.started").count == 1)
        #expect(second.named("build.started").count == 1)
        #expect(first.contains { $0.kind == .buildFailed(failure: .transient, roots: ["session"], exhausted: false) })
        #expect(first.nodes("node.skipped") == ["feed"])
        #expect(Set(second.nodes("node.reused")) == ["configuration", "database", "analytics"])
        #expect(Set(second.nodes("node.started")) == ["session", "feed"])
        #expect(second.named("snapshot.published").count == 1)
        #expect(report.reports.map(\.attempt) == [1, 2])
        #expect(report.reports.last?.outcome(of: "database") == .reused)
    }

    @Test("transient with --retries 0: the story says it could not retry and exits non-zero")
    func transientWithoutRetries() async {
        let report = await TransientStory.run(callers: 0, retries: 0)
        #expect(report.exitCode == 1)
        #expect(report.failedChecks.contains { $0.claim.contains("publishes") })
        #expect(report.events.named("build.started").count == 1)
    }

    @Test("permanent: the next call fails at once without a build; reset starts generation 2")
    func permanent() async {
        let report = await PermanentStory.run(callers: 0, retries: 0)
        expectStoryHeld(report)
        let events = report.events
        #expect(events.contains { $0.kind == .buildFailed(failure: .permanent, roots: ["database"], exhausted: false) })
        let failedJoin = events.firstIndex {
            if case .callerJoined("retry-button", .failed, _) = $0.kind { true } else { false }
        }
        let reset = events.firstIndex {
            $0.kind == .generationReset(TraceEvent.GenerationChange(from: 1, to: 2, invalidated: nil))
        }
        #expect(failedJoin != nil)
        #expect(reset != nil)
        if let failedJoin, let reset {
            #expect(Array(events[failedJoin..<reset]).named("build.started").isEmpty)
            #expect(
                events[failedJoin...].contains { $0.kind == .callerResumed(caller: "retry-button", result: .failure) })
        }
        #expect(events.named("build.started").map(\.generation) == [1, 2])
        #expect(events.inBuild(2, 1).named("snapshot.published").count == 1)
        // The values generation 1 built were torn down, dependents first, before generation 2 built.
        let torn = events.filter { $0.generation == 1 }.nodes("node.tornDown")
        #expect(Set(torn) == ["configuration", "analytics"])
        #expect(torn.first == "analytics")
    }

    @Test("logout: generation 2 rebuilds session and feed, torn down in reverse dependency order")
    func logout() async {
        let report = await LogoutStory.run(callers: 2, retries: 0)
        expectStoryHeld(report)
        let events = report.events
        #expect(
            events.contains {
                $0.kind
                    == .generationReset(TraceEvent.GenerationChange(from: 1, to: 2, invalidated: ["session", "feed"]))
            })
        let torn = events.nodes("node.tornDown")
        #expect(torn == ["feed", "session"])
        // Reverse dependency order, in general: nothing is torn down after one of its dependencies.
        if let graph = report.graph {
            for (index, name) in torn.enumerated() {
                for later in torn[(index + 1)...] {
                    #expect(!(graph.dependencies(of: later) ?? []).contains(name), "\(name) torn down before \(later)")
                }
            }
        }
        let second = events.inBuild(2, 1)
        #expect(second.named("build.started").count == 1)
        #expect(Set(second.nodes("node.started")) == ["session", "feed"])
        #expect(second.named("snapshot.published").count == 1)
        #expect(!torn.contains("database"))
    }

    @Test("cancel: one caller.cancelled, the others resumed with the snapshot, one build")
    func cancel() async {
        let report = await CancelStory.run(callers: 2)
        expectStoryHeld(report)
        let events = report.events
        let cancelled = events.compactMap { if case .callerCancelled(let caller) = $0.kind { caller } else { nil } }
        #expect(cancelled == ["push"])
        let resumed = events.compactMap {
            if case .callerResumed(let caller, .snapshot) = $0.kind { caller } else { nil }
        }
        #expect(Set(resumed) == ["launch", "scene", "deeplink", "caller-1", "caller-2"])
        #expect(events.named("build.started").count == 1)
        #expect(events.named("snapshot.published").count == 1)
        // Push gave up while the build was held: before the snapshot was published.
        let cancelIndex = events.firstIndex { $0.kind.name == "caller.cancelled" }
        let publishIndex = events.firstIndex { $0.kind.name == "snapshot.published" }
        #expect(cancelIndex != nil && publishIndex != nil && cancelIndex! < publishIndex!)
    }

    @Test("--scenario all runs every story (cold start from --config) and exits 0")
    func all() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write("small.json", SimulatedConfigs.config([("a", [], ["ok"]), ("b", ["a"], ["ok"])]))
        let capture = CapturedOutput()
        let status = await runDemo(
            DemoOptions(configPath: config, trace: .jsonl, scenario: .all, dataDirectory: folder.path),
            output: capture.output())
        #expect(status == 0, "\(capture.standardError)")
        let scenarios = Set(JSONLines.parse(capture.standardOutput).compactMap { $0["scenario"] as? String })
        // The scopes and reload stories read Configs/ from the current folder (swift test runs at the root).
        let atRoot = FileManager.default.fileExists(atPath: "Configs/app.json")
        let skipped: Set<String> = atRoot ? [] : ["scopes", "reload"]
        #expect(scenarios == Set(DemoScenario.stories.map(\.name)).subtracting(skipped))
        #expect(atRoot || capture.standardError.contains("the scopes story is skipped"))
    }
}
