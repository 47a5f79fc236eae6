import Container
import ContainerTesting
import ContainerTrace
import TestSupport
import Testing

@testable import ContainerDemoKit

/// The launch story (Container's "Demand-driven start-up" and "Launch tiers and the main actor"
/// articles) on `Configs/launch.json`.
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
        #expect(config.graph.count == 24)
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

    @Test("didFinishLaunching builds the synchronous tier with resolveNow: each provider once, before it returns")
    func synchronousTier() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try load("launch.json", folder: folder)
        #expect(LaunchStory.synchronousTier.allSatisfy { config.graph.isSynchronous($0) == true })
        let report = try await LaunchStory.run(config, retries: nil).get()
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        let events = report.events
        let tier = ["settings", "notificationDelegate", "backgroundTasks"]
        // Counted: each synchronous provider ran exactly once in the whole run.
        let starts = events.nodes("node.started")
        for name in tier {
            #expect(starts.count { $0 == name } == 1, "\(name) started \(starts.count { $0 == name }) times")
        }
        // Each ended before the resolveNow calls were answered, and those before launch asked.
        let answers = events.indices.filter {
            events[$0].kind.name == "caller.resumed" && events[$0].kind.caller == "didFinishLaunching"
        }
        #expect(answers.count == 2)
        let launchJoined = try #require(
            events.firstIndex { $0.kind.name == "caller.joined" && $0.kind.caller == "launch" })
        let launchAnswered = try #require(
            events.firstIndex { $0.kind.name == "caller.resumed" && $0.kind.caller == "launch" })
        for name in tier {
            let succeeded = try #require(
                events.firstIndex { $0.kind.name == "node.succeeded" && $0.kind.node == name }, "\(name)")
            #expect(succeeded < (answers.last ?? -1) && succeeded < launchJoined && succeeded < launchAnswered)
        }
        #expect((answers.last ?? .max) < launchJoined)
        // Launch's build reuses them: they are in its snapshot and run in none of its builds.
        let launchBuild = events[launchJoined].build
        let reused = events.filter { $0.kind.name == "node.reused" && $0.build == launchBuild }.compactMap(\.kind.node)
        #expect(Set(tier).isSubset(of: Set(reused)))
        #expect(
            report.narrative.contains {
                $0.hasPrefix("1. didFinishLaunching: notificationDelegate, backgroundTasks resolved synchronously in ")
                    && $0.contains("before returning")
            })
    }

    @Test("the theme, the router and the accounts manager run on the main actor; the timeline marks them")
    func mainActorTier() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try load("launch.json", folder: folder)
        let report = try await LaunchStory.run(config, retries: nil).get()
        #expect(report.failedChecks.isEmpty, "\(report.failedChecks)")
        let executors = LaunchStory.executors(report.events)
        // Besides the main-actor tier, what didFinishLaunching's resolveNow made on the main actor.
        #expect(
            Set(executors.filter { $0.value == .main }.keys)
                == ["theme", "router", "accountsManager", "settings", "notificationDelegate", "backgroundTasks"])
        #expect(executors["keychain"] == .pool && executors["database"] == .pool)
        let timeline = TimelineRenderer().render(report.events)
        for name in ["theme", "router", "accountsManager"] {
            #expect(
                timeline.split(separator: "\n").contains {
                    $0.contains(" \(name) ") && $0.contains("on the main actor")
                })
        }
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
        // A didFinishLaunching whose resolveNow failed, and a trace without main-actor nodes.
        run.didFinish.error = "cannot resolve 'notificationDelegate' now"
        let failed = LaunchStory.checks(run, graph: graph)
        #expect(failed.contains { !$0.passed && $0.claim.hasPrefix("didFinishLaunching builds the synchronous tier") })
        #expect(failed.contains { !$0.passed && $0.claim.hasPrefix("the theme, the router and the accounts manager") })
    }
}
