import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import Testing

/// Teardown (the Coordinator rules article) with the real providers: reverse dependency order, each value once.
struct TeardownTests {
    /// `app.json`'s chain plus a simulated `sync` node on top of the session.
    static func chainWithSync(_ fixture: AppFixture, syncOutcomes: [String]) throws -> String {
        let outcomes = syncOutcomes.map { "\"\($0)\"" }.joined(separator: ", ")
        return try fixture.write(
            "sync.json",
            """
            {
              "version": 1,
              "services": [
                { "name": "configuration", "provider": "configuration", "options": { "path": "settings/app-settings.json" } },
                { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"], "options": { "path": "app.sqlite" } },
                { "name": "session", "provider": "session", "dependsOn": ["database"] },
                { "name": "sync", "provider": "simulated", "dependsOn": ["session"], "options": { "outcomes": [\(outcomes)] } }
              ]
            }
            """)
    }

    static func tornDown(_ events: [TraceEvent]) -> [String] {
        events.compactMap { event in
            if case .nodeTornDown(let node, let error) = event.kind { return error == nil ? node : "\(node) (failed)" }
            return nil
        }
    }

    @Test func shutdownTearsDownInReverseDependencyOrderOnce() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let config = try ConfigLoader.load(
            path: fixture.appConfig, registry: try countingRegistry(log: log), pathRoots: fixture.pathRoots)
        let recorder = TraceRecorder()
        let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [recorder])
        let services = try await withTimeout { try await container.start() }
        let database = try services[.database]
        #expect(!database.isClosed)
        #expect(log.entries.filter { $0.hasPrefix("tearDown:") }.isEmpty)

        let report = try await withTimeout { try await container.shutdown() }
        #expect(
            log.entries.filter { $0.hasPrefix("tearDown:") }
                == ["tearDown:session", "tearDown:database", "tearDown:configuration"])
        #expect(report.tornDown.map(\.service) == ["session", "database", "configuration"])
        #expect(report.failures.isEmpty)
        #expect(Self.tornDown(recorder.events) == ["session", "database", "configuration"])
        #expect(database.isClosed)
        // The old snapshot is still readable, but the closed database refuses work with a clear error.
        #expect(throws: DatabaseError.self) { try database.query("SELECT 1") }
    }

    @Test func afterATransientRetryEachValueIsBuiltAndTornDownOnce() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let path = try Self.chainWithSync(fixture, syncOutcomes: ["transient", "ok"])
        let config = try ConfigLoader.load(path: path, registry: try countingRegistry(log: log))
        let recorder = TraceRecorder()
        let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [recorder])

        await #expect {
            try await withTimeout { try await container.start() }
        } throws: { ($0 as? ContainerError)?.failure == .transient }
        // Attempt 1 kept configuration, database and session for the retry; nothing was torn down.
        #expect(log.entries.filter { $0.hasPrefix("tearDown:") }.isEmpty)

        let services = try await withTimeout { try await container.start() }
        #expect(services.report.attempt == 2)
        #expect(try services[ServiceKey<SimulatedValue>("sync")].run == 2)
        for node in ["configuration", "database", "session"] {
            #expect(log.count(of: "make:\(node)") == 1, "\(node) was rebuilt by the retry")
            #expect(services.report.outcome(of: node) == .reused)
        }
        #expect(log.count(of: "make:sync") == 2)
        #expect(try services[.database].appliedMigrations.map(\.version) == [1, 2, 3])

        try await withTimeout { try await container.shutdown() }
        #expect(
            log.entries.filter { $0.hasPrefix("tearDown:") }
                == ["tearDown:sync", "tearDown:session", "tearDown:database", "tearDown:configuration"])
        #expect(Self.tornDown(recorder.events) == ["sync", "session", "database", "configuration"])
    }

    @Test func resetTearsDownTheRetiredGenerationOnceBeforeRebuilding() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let config = try ConfigLoader.load(
            path: fixture.appConfig, registry: try countingRegistry(log: log), pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let first = try await withTimeout { try await container.start() }
        let firstDatabase = try first[.database]

        let report = try await withTimeout { try await container.reset() }
        #expect(report.from == 1 && report.to == 2)
        #expect(report.tornDown.map(\.service) == ["session", "database", "configuration"])
        #expect(firstDatabase.isClosed)
        #expect(
            log.entries == [
                "make:configuration", "make:database", "make:session",
                "tearDown:session", "tearDown:database", "tearDown:configuration",
            ])

        let second = try await withTimeout { try await container.start() }
        #expect(second !== first)
        #expect(second.generation == 2)
        let secondDatabase = try second[.database]
        #expect(secondDatabase !== firstDatabase)
        #expect(!secondDatabase.isClosed)
        // Same file: the second generation found the schema current.
        #expect(secondDatabase.appliedMigrations.isEmpty)

        try await withTimeout { try await container.shutdown() }
        for node in ["configuration", "database", "session"] {
            #expect(log.count(of: "make:\(node)") == 2)
            #expect(log.count(of: "tearDown:\(node)") == 2)
        }
        #expect(secondDatabase.isClosed)
    }

    @Test func logoutRebuildsOnlyTheSessionAndNeverReopensTheDatabase() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let config = try ConfigLoader.load(
            path: fixture.appConfig, registry: try countingRegistry(log: log), pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let first = try await withTimeout { try await container.start() }
        let database = try first[.database]
        #expect(try first[.session].isSignedIn)

        // Log out: delete the session row, then invalidate only the session.
        try database.execute("DELETE FROM sessions")
        let report = try await withTimeout { try await container.reset(invalidating: ["session"]) }
        #expect(report.invalidated == ["session"])
        #expect(Set(report.carriedOver) == ["configuration", "database"])
        #expect(report.tornDown.map(\.service) == ["session"])
        #expect(!database.isClosed)

        let second = try await withTimeout { try await container.start() }
        #expect(try second[.session] == .signedOut)
        #expect(try second[.database] === database)
        #expect(log.count(of: "make:database") == 1)
        #expect(log.count(of: "make:session") == 2)
        let push = try await withTimeout {
            try await container.run(PushEntryPoint(), scopeID: "n-1", parameters: [.set(.itemID, to: "A-17")])
        }
        #expect(push == "push: dropped (signed out)")

        try await withTimeout { try await container.shutdown() }
        #expect(log.count(of: "tearDown:database") == 1)
        #expect(log.count(of: "tearDown:session") == 2)
        #expect(database.isClosed)
    }

    @Test func aPermanentFailureTearsDownWhatTheGenerationBuiltAtOnce() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let path = try Self.chainWithSync(fixture, syncOutcomes: ["permanent"])
        let config = try ConfigLoader.load(path: path, registry: try countingRegistry(log: log))
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [watcher])
        await #expect {
            try await withTimeout { try await container.start() }
        } throws: { ($0 as? ContainerError)?.failure == .permanent }
        // The generation can never be used: its values are torn down without waiting for a reset.
        try await watcher.wait(for: "the failed generation's teardown") { Self.tornDown($0).count == 3 }
        #expect(Self.tornDown(watcher.events) == ["session", "database", "configuration"])
        #expect(log.count(of: "tearDown:database") == 1)
        try await withTimeout { try await container.shutdown() }
        #expect(log.count(of: "tearDown:database") == 1)
    }
}
