import Container
import ContainerTesting
import Foundation
import TestSupport
import Testing

@testable import ContainerDemoKit

/// The scopes story (Container's Scopes article) on the repository's `Configs/app.json`, in a temporary data folder.
@Suite("The scopes story", .timeLimit(.minutes(1)))
struct ScopesStoryTests {
    private func load(_ path: String, data folder: TemporaryFolder) throws -> LoadedConfig {
        try ConfigSource.load(path: path, pathRoots: DemoDataFolder.pathRoots(folder.path)).get()
    }

    private func run(_ config: LoadedConfig) async throws -> ScenarioReport {
        try await ScopesStory.run(config, retries: nil).get()
    }

    @Test("app.json: the instances build on the app snapshot; logout supersedes the three that use the session")
    func appConfig() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let report = try await run(try load(RepositoryPaths.config("app.json"), data: folder))
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        #expect(report.exitCode == 0)
        let events = report.events
        let labels = ["scene#window-1", "scene#window-2", "push#notification-42"]
        // The push's build asks the app (caller.joined on the app, named after the instance),
        // and pushDetail starts only after the app's snapshot was published.
        let appPublished = try #require(events.firstIndex { $0.scope == nil && $0.kind.name == "snapshot.published" })
        let pushJoined = try #require(
            events.firstIndex { $0.scope == nil && $0.kind.caller == "push#notification-42" })
        let pushDetail = try #require(
            events.firstIndex { $0.scope == "push#notification-42" && $0.kind.node == "pushDetail" })
        #expect(pushJoined < appPublished && appPublished < pushDetail)
        for label in labels {
            #expect(events.contains { $0.scope == label && $0.kind == .scopeOpened })
            #expect(events.contains { $0.scope == label && $0.kind == .scopeClosed })
            // Superseded by logout: the instance's own generation 2 rebuilt what used the session
            // (a window's router); the push detail read only the database, and carried over.
            let rebuilt = label.hasPrefix("scene") ? "node.started" : "node.reused"
            #expect(events.contains { $0.scope == label && $0.generation == 2 && $0.kind.name == rebuilt })
        }
        // app.json's push entry point reads the session, so the push scope uses it too.
        #expect(
            report.narrative.contains {
                $0.contains(
                    "push#notification-42 uses database (pushDetail), session (the push entry point): superseded "
                        + "(session retired)")
            }, "\(report.narrative)")
        #expect(events.filter { $0.scope == nil && $0.generation == 1 }.count("build.started") == 1)
        #expect(events.filter { $0.scope == nil }.nodes("node.started").filter { $0 == "database" }.count == 1)
        #expect(report.status?.openScopes == labels)
    }

    @Test("a push scope that does not use the session keeps its very snapshot through logout")
    func unaffectedScopeKeepsItsSnapshot() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // app.json without the push entry point (which reads the session): the push scope then
        // uses only the database, through pushDetail.
        let text = try String(contentsOfFile: RepositoryPaths.config("app.json"), encoding: .utf8)
            .replacingOccurrences(
                of: #""entryPoints": ["launch", "scene", "deeplink", "push"]"#,
                with: #""entryPoints": ["launch", "scene", "deeplink"]"#)
        #expect(text.contains(#""entryPoints": ["launch", "scene", "deeplink"]"#))
        let path = try folder.write("app.json", text)
        try FileManager.default.createDirectory(atPath: folder.path + "/settings", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: RepositoryPaths.config("settings/app-settings.json"),
            toPath: folder.path + "/settings/app-settings.json")
        let config = try load(path, data: folder)
        #expect(ScopesStory.uses("push", config: config) == ["database"])
        let report = try await run(config)
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        let events = report.events
        let push = "push#notification-42"
        #expect(!events.contains { $0.scope == push && $0.kind.name == "generation.reset" })
        #expect(events.filter { $0.scope == push }.count("build.started") == 1, "built once, kept through logout")
        for window in ["scene#window-1", "scene#window-2"] {
            #expect(events.contains { $0.scope == window && $0.kind.name == "generation.reset" })
            #expect(events.filter { $0.scope == window }.count("build.started") == 2)
        }
        #expect(report.narrative.contains { $0.contains("\(push) uses database (pushDetail): keeps its snapshot") })
    }

    @Test("a config without the scene and push scopes cannot tell the story: exit 2 with the reason")
    func configWithoutScopes() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write("plain.json", SimulatedConfigs.config([("a", [], ["ok"])]))
        let capture = CapturedOutput()
        let status = await DemoCommand.main(
            ["--scenario", "scopes", "--config", path, "--callers", "1", "--data-dir", folder.path],
            output: capture.output())
        #expect(status == 2)
        #expect(capture.standardError.contains("does not declare the scopes push, scene"))
    }
}
