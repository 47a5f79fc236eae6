import Container
import ContainerTesting
import TestSupport
import Testing

@testable import ContainerDemoKit

/// The launch story (Container's Demand-driven start-up article) on `Configs/launch.json`.
@Suite("The launch story", .timeLimit(.minutes(1)))
struct LaunchStoryTests {
    private func load(_ name: String, folder: TemporaryFolder) throws -> LoadedConfig {
        try ConfigSource.load(path: RepositoryPaths.config(name), pathRoots: DemoDataFolder.pathRoots(folder.path))
            .get()
    }

    @Test("launch builds the eager services; the push, the deferred tier, the optional tracker and the input as told")
    func story() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try load("launch.json", folder: folder)
        #expect(config.graph.count == 20)
        let report = try await LaunchStory.run(config, retries: nil).get()
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        #expect(report.exitCode == 0)
        let status = try #require(report.status)
        #expect(status.service("remoteTracker")?.state == .failed)
        #expect(status.service("searchIndex")?.state == .notRequested)
        #expect(status.service("pushRegistration")?.state == .built)
        // Each provider that ran, ran once: the trace's starts are distinct.
        let starts = report.events.nodes("node.started")
        #expect(starts.count == Set(starts).count)
        #expect(!starts.contains("feed") && !starts.contains("searchIndex") && !starts.contains("profile"))
    }

    @Test("a config without the story's services is refused with the remedy")
    func wrongConfig() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try load("startup-simulated.json", folder: folder)
        let result = await LaunchStory.run(config, retries: nil)
        guard case .failure(let problem) = result else {
            Issue.record("the story ran on a config without its services")
            return
        }
        #expect(problem.description.contains("run it with Configs/launch.json"))
    }

    @Test("the story's checks can fail: a launch that built everything breaks the first claim")
    func checksCanFail() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let graph = try load("launch.json", folder: folder).graph
        var run = LaunchStory.Run(total: graph.count)
        run.launchStarted = Set(graph.serviceNames)
        let checks = LaunchStory.checks(run, graph: graph)
        #expect(checks.contains { !$0.passed && $0.claim.hasPrefix("launch builds exactly the eager services") })
        #expect(checks.contains { !$0.passed && $0.claim.hasPrefix("push registration waits") })
    }
}
