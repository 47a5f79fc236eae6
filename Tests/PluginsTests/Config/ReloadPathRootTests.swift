import Container
import Foundation
import Plugins
import Testing

/// Configs/README.md (Reload): a service changes with the folders of the path roots its options
/// name; a root it does not name (added, or moved to another folder) changes nothing.
struct ReloadPathRootTests {
    private let text = """
        { "version": 1, "services": [
          { "name": "settings", "provider": "simulated" },
          { "name": "feed", "provider": "simulated", "dependsOn": ["settings"] }
        ] }
        """

    @Test("reloading the same config with an extra, unused path root changes no service")
    func unusedPathRootChangesNothing() async throws {
        let v1 = try ConfigLoader.load(text: text, file: "/app/app.json", pathRoots: ["data": "/data"])
        let container = ServiceContainer(graph: v1.graph, policy: v1.policy)
        _ = try await container.start()

        let v2 = try ConfigLoader.load(
            text: text, file: "/app/app.json", pathRoots: ["data": "/data", "cache": "/caches"])
        #expect(v2.graph.changes(from: v1.graph).changed == [], "changes(from:) on the same declarations")
        let report = try await container.reload(v2.graph)
        #expect(report.changed == [], "nothing the services declare differs; changed: \(report.changed)")
        #expect(report.carriedOver == ["settings", "feed"], "carried over: \(report.carriedOver)")
        _ = try await container.shutdown()
    }

    @Test("reloading with another folder for a root that no service uses changes no service")
    func otherRootFolderChangesNothing() async throws {
        let v1 = try ConfigLoader.load(text: text, file: "/app/app.json", pathRoots: ["data": "/data"])
        let v2 = try ConfigLoader.load(text: text, file: "/app/app.json", pathRoots: ["data": "/elsewhere"])
        #expect(v2.graph.changes(from: v1.graph).changed == [], "no service reads a path")
    }

    @Test("a service whose option names a root changes when that root's folder does, not when another's does")
    func namedRootChanges() throws {
        let text = """
            { "version": 1, "services": [
              { "name": "db", "provider": "sqlite", "options": { "path": "$data/app.sqlite" } },
              { "name": "feed", "provider": "simulated" }
            ] }
            """
        let v1 = try ConfigLoader.load(text: text, file: "/app/app.json", pathRoots: ["data": "/data", "c": "/c"])
        let moved = try ConfigLoader.load(text: text, file: "/app/app.json", pathRoots: ["data": "/other", "c": "/c"])
        #expect(moved.graph.changes(from: v1.graph).changed == ["db"])
        let other = try ConfigLoader.load(text: text, file: "/app/app.json", pathRoots: ["data": "/data", "c": "/d"])
        #expect(other.graph.changes(from: v1.graph).changed == [])
    }
}
