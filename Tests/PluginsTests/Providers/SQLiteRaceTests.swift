import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import Testing

/// Five entry points race at cold start against `app.json` with a real SQLite file.
struct SQLiteRaceTests {
    static let callers = ["launch", "scene", "deeplink", "push", "launch-2"]

    @Test func fiveEntryPointsAtColdStartShareOneBuildAndMigrateOnce() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        // Hold the first node until all five callers have joined, so they really race at cold start.
        let coldStart = Gate()
        // However long the callers take to join on a loaded machine: the held node goes without
        // its 2 s timeout.
        let shipped = try String(contentsOfFile: fixture.appConfig, encoding: .utf8)
        let untimed = shipped.replacingOccurrences(
            of: "\"timeoutMs\": 2000,\n      \"failure\": \"permanent\"", with: "\"failure\": \"permanent\"")
        try #require(untimed != shipped, "the configuration service of app.json has a 2 s timeout")
        let config = try ConfigLoader.load(
            path: try fixture.write("app.json", untimed),
            registry: try countingRegistry(log: log, configurationGate: coldStart),
            pathRoots: fixture.pathRoots)
        #expect(config.entryPoints.map(\.id) == ["launch", "scene", "deeplink", "push"])
        let entryPoints: [any EntryPoint] = config.entryPoints + [LaunchEntryPoint()]
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [watcher])

        let results = try await withTimeout(.seconds(60), "five entry points") {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, entryPoint) in entryPoints.enumerated() {
                    group.addTask { (index, try await Self.run(entryPoint, on: container, index: index)) }
                }
                // Five app callers: launch, deeplink, the second launch, and the builds of the
                // scene's and the push's scope instances (each joins the app's build first).
                try await watcher.wait(for: "five callers to join the app's build") { events in
                    events.filter { if case .callerJoined = $0.kind { $0.scope == nil } else { false } }.count == 5
                }
                coldStart.open()
                var results: [(Int, String)] = []
                for try await result in group { results.append(result) }
                return results.sorted { $0.0 < $1.0 }
            }
        }

        // One build: every provider ran once; every app caller joined that build.
        let first = try #require(container.current)
        #expect(log.count(of: "make:configuration") == 1)
        #expect(log.count(of: "make:database") == 1)
        #expect(log.count(of: "make:session") == 1)
        #expect(log.count(of: "make:sceneRouter") == 1 && log.count(of: "make:pushDetail") == 1)
        let joinStates = watcher.events.compactMap { event -> TraceEvent.CallerState? in
            if case .callerJoined(_, let state, _) = event.kind, event.scope == nil { return state }
            return nil
        }
        #expect(joinStates.filter { $0 == .idle }.count == 1)
        #expect(joinStates.filter { $0 == .running }.count == 4)

        // The migrations ran exactly once: one row per version, and one seeded session.
        let database = try first[.database]
        #expect(database.journalMode == "wal")
        #expect(database.appliedMigrations.map(\.version) == [1, 2, 3, 4])
        let rows = try database.query(
            "SELECT version, name, COUNT(*) AS count FROM schema_migrations GROUP BY version ORDER BY version")
        #expect(rows.map { $0["version"]?.int } == [1, 2, 3, 4])
        #expect(
            rows.map { $0["name"]?.string } == [
                "create_sessions", "create_launches", "seed_demo_session", "create_items",
            ])
        #expect(rows.allSatisfy { $0["count"]?.int == 1 })
        #expect(try database.query("SELECT COUNT(*) AS count FROM sessions").first?["count"]?.int == 1)
        #expect(try database.query("SELECT COUNT(*) AS count FROM launches").first?["count"]?.int == 2)

        // Every entry point did its work with the same restored session.
        let session = try first[.session]
        #expect(session.userID == "ada")
        let token = try #require(session.token)
        #expect(token.count == 32)
        #expect(results.map(\.1)[3] == "push: A-17: Your order has shipped, for ada")
        #expect(results.map(\.1)[2] == "deeplink: demo://profile -> ProfileScreen (signed in as ada)")
        #expect(results.map(\.1)[1] == "scene: connected Demo window-1: HomeScreen for ada (theme dark)")
        #expect(results.map(\.1)[0].hasPrefix("launch: Demo (development), schema v4, launch #"))

        // The token never appears in the trace, in the summaries, or in the session's printed forms.
        try await container.shutdown()
        let traced = text(of: watcher.events)
        #expect(!traced.contains(token))
        #expect(!results.map(\.1).joined().contains(token))
        var dumped = ""
        dump(session, to: &dumped)
        for printed in [String(describing: session), String(reflecting: session), dumped, "\(first)"] {
            #expect(!printed.contains(token))
        }
        #expect(String(reflecting: session).contains("<redacted>"))
    }

    /// Runs `entryPoint` the way the app would: on the app snapshot, or in an instance of its scope.
    static func run<Entry: EntryPoint>(_ entryPoint: Entry, on container: ServiceContainer, index: Int) async throws
        -> String
    {
        switch entryPoint.scope {
        case "scene"?:
            return String(
                describing: try await container.run(
                    entryPoint, scopeID: "window-1", parameters: [.set(.windowID, to: "window-1")]))
        case "push"?:
            return String(
                describing: try await container.run(
                    entryPoint, scopeID: "notification-42", parameters: [.set(.itemID, to: "A-17")]))
        default:
            return String(describing: try await container.run(entryPoint))
        }
    }

    @Test func reopeningTheDatabaseAppliesNoMigrationAgain() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        for round in 1...2 {
            let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
            let container = ServiceContainer(graph: config.graph, policy: config.policy)
            let services = try await withTimeout { try await container.start() }
            let database = try services[.database]
            #expect(database.path == fixture.databasePath)
            #expect(database.appliedMigrations.map(\.version) == (round == 1 ? [1, 2, 3, 4] : []))
            #expect(try database.schemaVersion() == 4)
            try await container.shutdown()
            #expect(database.isClosed)
        }
        #expect(FileManager.default.fileExists(atPath: fixture.databasePath))
    }

    @Test func sessionTokenIsRedactedFromFailuresDownstream() async throws {
        struct LeakyError: Error, CustomStringConvertible {
            let token: String
            var description: String { "profile request rejected for token \(token)" }
        }
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
        let leaky = ServiceSpec(ServiceKey<String>("profile"), dependsOn: ["session"], defaultFailure: .permanent) {
            context in
            throw LeakyError(token: try context[.session].token ?? "")
        }
        let graph = try ServiceGraph(config.specs + [leaky], registry: .demo, scopes: config.graph.scopes)
        let recorder = TraceRecorder()
        let container = ServiceContainer(graph: graph, policy: config.policy, trace: [recorder])
        do {
            _ = try await withTimeout { try await container.start() }
            Issue.record("the build should fail")
        } catch let error as ContainerError {
            // Read the token the way the app would, from the database the build opened.
            let database = try Database(path: fixture.databasePath, migrations: [])
            let token = try #require(try database.query("SELECT token FROM sessions").first?["token"]?.string)
            try database.close()
            #expect(error.failure == .permanent)
            #expect(error.description.contains("profile request rejected for token <redacted>"))
            #expect(!error.description.contains(token))
            if case .failed(let failure)? = error.report?.outcome(of: "profile") {
                #expect(!failure.message.contains(token))
            } else {
                Issue.record("profile should have failed")
            }
            #expect(!text(of: recorder.events).contains(token))
            #expect(text(of: recorder.events).contains("<redacted>"))
        }
        try await container.shutdown()
    }

    @Test func anAbsentSessionIsSignedOutNotAnError() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        // The demo's default schema creates the tables but seeds no session.
        let path = try fixture.write(
            "signed-out.json",
            """
            {
              "version": 1,
              "scopes": ["scene", "push"],
              "services": [
                { "name": "configuration", "provider": "configuration", "options": { "path": "settings/app-settings.json" } },
                { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"], "options": { "path": ":memory:" } },
                { "name": "session", "provider": "session", "dependsOn": ["database"] },
                { "name": "sceneRouter", "provider": "sceneRouter", "scope": "scene", "dependsOn": ["configuration", "session"] },
                { "name": "pushDetail", "provider": "pushDetail", "scope": "push", "dependsOn": ["database"] }
              ],
              "entryPoints": ["push", "deeplink", "scene"]
            }
            """)
        let config = try ConfigLoader.load(path: path, registry: .demo)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        var summaries: [String] = []
        for (index, entryPoint) in config.entryPoints.enumerated() {
            summaries.append(try await withTimeout { try await Self.run(entryPoint, on: container, index: index) })
        }
        #expect(
            summaries == [
                "push: dropped (signed out)",
                "deeplink: demo://profile -> SignInScreen, then ProfileScreen",
                "scene: connected Demo window-1: SignInScreen (theme dark)",
            ])
        let services = try #require(container.current)
        #expect(try services[.session] == .signedOut)
        #expect(try services[.database].journalMode == "memory")
        try await container.shutdown()
    }

    @Test func aBadMigrationIsAPermanentFailureNamingTheMigration() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = try fixture.write(
            "bad-migration.json",
            """
            {
              "version": 1,
              "services": [
                { "name": "database", "provider": "sqlite", "options": { "path": "bad.sqlite", "migrations": [
                  { "version": 1, "name": "create_t", "sql": "CREATE TABLE t (id INTEGER);" },
                  { "version": 2, "name": "typo", "sql": "CREATE TABEL u (id INTEGER);" }
                ] } }
              ]
            }
            """)
        let config = try ConfigLoader.load(path: path)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        await #expect {
            try await withTimeout { try await container.start() }
        } throws: { error in
            guard let error = error as? ContainerError else { return false }
            return error.failure == .permanent && error.description.contains("migration 2 'typo' failed")
        }
        // The transaction rolled back: not even migration 1 is recorded.
        let database = try Database(path: fixture.directory.appendingPathComponent("bad.sqlite").path, migrations: [])
        #expect(try database.schemaVersion() == 0)
        try database.close()
        try await container.shutdown()
    }
}
