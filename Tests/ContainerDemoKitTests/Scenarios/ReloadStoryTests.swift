import Container
import ContainerTesting
import TestSupport
import Testing

@testable import ContainerDemoKit

/// The reload story (Container's Reload article) on `Configs/reload/v1.json` → `v2.json`.
@Suite("The reload story", .timeLimit(.minutes(1)))
struct ReloadStoryTests {
    @Test("v1 → v2: session changed, cache removed and closed, remoteConfig added; the database carries over")
    func pair() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let roots = DemoDataFolder.pathRoots(folder.path)
        let old = try ConfigSource.load(path: RepositoryPaths.config("reload/v1.json"), pathRoots: roots).get()
        let outcome = try await ReloadRun.run(
            old: old, newPath: RepositoryPaths.config("reload/v2.json"), pathRoots: roots, callers: nil,
            retries: nil, interrupt: DemoInterrupt(), live: nil
        ).get()
        let report = ReloadRun.report(
            outcome, scenario: .reload, isConfigRun: false, extraChecks: ReloadStory.checks(outcome))
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        #expect(report.exitCode == 0)
        #expect(outcome.reload.added == ["remoteConfig"])
        #expect(outcome.reload.removed == ["cache"])
        #expect(outcome.reload.changed == ["session"])
        #expect(outcome.reload.carriedOver == ["configuration", "database"])
        // Carried over means the same value: the database of generation 1 is generation 2's.
        let before = try #require(outcome.publishedBefore)
        let after = try #require(outcome.publishedAfter)
        #expect(try before.anyValue(named: "database") as AnyObject === after.anyValue(named: "database") as AnyObject)
        let reset = outcome.events.compactMap { event -> TraceEvent.GenerationChange? in
            if case .generationReset(let change) = event.kind { change } else { nil }
        }
        #expect(reset.map(\.reason) == [.reload])
    }

    @Test("a broken pair makes the story's checks fail: they can fail")
    func checksCanFail() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let roots = DemoDataFolder.pathRoots(folder.path)
        let old = try ConfigSource.load(path: RepositoryPaths.config("reload/v1.json"), pathRoots: roots).get()
        // Reloading v1 onto itself changes nothing: every claim about v2 fails.
        let outcome = try await ReloadRun.run(
            old: old, newPath: RepositoryPaths.config("reload/v1.json"), pathRoots: roots, callers: nil,
            retries: nil, interrupt: DemoInterrupt(), live: nil
        ).get()
        let checks = ReloadStory.checks(outcome)
        #expect(checks.filter { !$0.passed }.count >= 3)
        #expect(outcome.reload.rebuilt.isEmpty)
    }
}
