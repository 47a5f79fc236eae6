import Container
import ContainerTesting
import TestSupport
import Testing

@testable import ContainerDemoKit

/// The accounts story (Container's Scopes article, "Nested scopes") on `Configs/accounts.json`.
@Suite("The accounts story", .timeLimit(.minutes(1)))
struct AccountsStoryTests {
    private func load(_ name: String, folder: TemporaryFolder) throws -> LoadedConfig {
        try ConfigSource.load(path: RepositoryPaths.config(name), pathRoots: DemoDataFolder.pathRoots(folder.path))
            .get()
    }

    @Test("accounts with a window each and a push, an observed switch, a logout that closes the window first")
    func story() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try load("accounts.json", folder: folder)
        #expect(config.graph.parentScope(of: "scene") == "account" && config.graph.parentScope(of: "push") == "account")
        let report = try await AccountsStory.run(config, retries: nil).get()
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        #expect(report.exitCode == 0)
        // Each scoped provider ran once per instance: the trace's starts are distinct per instance.
        let starts = report.events.filter { $0.kind.name == "node.started" && $0.scope != nil }
            .map { "\($0.scope ?? "")/\($0.kind.node ?? "")" }
        #expect(starts.count == Set(starts).count && starts.count == 2 * 2 + 2 + 1)
        #expect(report.narrative.contains { $0.contains("the view re-read homeFeed of generation 2, for grace") })
    }

    @Test("a config without nested scopes is refused with the remedy")
    func wrongConfig() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try load("app.json", folder: folder)
        let result = await AccountsStory.run(config, retries: nil)
        guard case .failure(let problem) = result else {
            Issue.record("the story ran on a config without its scopes")
            return
        }
        #expect(problem.description.contains("run it with Configs/accounts.json"))
    }

    @Test("the story's checks can fail: a logout that closed the account before its window breaks its claim")
    func checksCanFail() {
        var run = AccountsStory.Run()
        run.closed = ["account#ada", "account#ada/scene#window-1"]
        run.accountsAfterLogout = ["account#grace"]
        let failed = AccountsStory.checks(run).filter { !$0.passed }.map(\.claim)
        #expect(failed.contains { $0.hasPrefix("logout closes the account's window before the account") })
    }
}
