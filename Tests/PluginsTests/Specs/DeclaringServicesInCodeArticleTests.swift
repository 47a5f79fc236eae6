import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// The "Declaring services in code" article's example (Sources/Plugins/Documentation.docc/
/// DeclaringServicesInCode.md), compiled and run as it is printed there, in a temporary folder.
@Suite("Declaring services in code: the article's example")
struct DeclaringServicesInCodeArticleTests {
    @Test("The example builds configuration, a migrated database with its notes table, and the session")
    func example() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let settingsPath = folder.appendingPathComponent("settings.json").path
        try Data(#"{ "appName": "Notes" }"#.utf8).write(to: URL(fileURLWithPath: settingsPath))
        let support = folder

        let container = try ServiceContainer([
            .configuration(.configuration, ConfigurationOptions(path: settingsPath), defaultFailure: .permanent),
            .sqlite(
                .database,
                SQLiteOptions(
                    path: support.appendingPathComponent("notes.sqlite").path,
                    migrations: [
                        Migration.sessionsTable,
                        Migration(
                            version: 2, name: "create_notes",
                            sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"),
                    ],
                    fileProtection: .completeUntilFirstUserAuthentication),
                dependsOn: .configuration, timeout: .seconds(5), retry: RetryPolicy(maxAttempts: 3)),
            .session(.session, dependsOn: .database),
        ])
        let services = try await withTimeout { try await container.start() }
        let database: Database = try services[.database]
        let notes = try database.query("SELECT body FROM notes")
        #expect(notes.isEmpty)
        #expect(try services[.database].appliedMigrations.map(\.name) == ["create_sessions", "create_notes"])
        #expect(try services[.configuration].appName == "Notes")
        #expect(try services[.session] == .signedOut)
        _ = try await container.shutdown()
    }

    @Test("The article prints the example as the test above runs it")
    func articleShowsIt() throws {
        let article = try String(
            contentsOf: PackagePaths.root.appendingPathComponent(
                "Sources/Plugins/Documentation.docc/DeclaringServicesInCode.md"),
            encoding: .utf8)
        for line in [
            ".configuration(.configuration, ConfigurationOptions(path: settingsPath), defaultFailure: .permanent),",
            "path: support.appendingPathComponent(\"notes.sqlite\").path,",
            "Migration.sessionsTable,",
            #"Migration(version: 2, name: "create_notes", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"),"#,
            "fileProtection: .completeUntilFirstUserAuthentication),",
            "dependsOn: .configuration, timeout: .seconds(5), retry: RetryPolicy(maxAttempts: 3)),",
            ".session(.session, dependsOn: .database),",
            "let services = try await container.start()",
            "let database: Database = try services[.database]",
            #"let notes = try database.query("SELECT body FROM notes")"#,
        ] {
            #expect(article.contains(line), "DeclaringServicesInCode.md lacks: \(line)")
        }
    }

    @Test("The article's JSON is the example's database service as a config declares it")
    func articleJSONMatches() throws {
        let article = try String(
            contentsOf: PackagePaths.root.appendingPathComponent(
                "Sources/Plugins/Documentation.docc/DeclaringServicesInCode.md"),
            encoding: .utf8)
        let start = try #require(article.range(of: "```json\n"))
        let end = try #require(article[start.upperBound...].range(of: "```"))
        let service = String(article[start.upperBound..<end.lowerBound])
            .replacing("CREATE TABLE sessions (...);", with: "SELECT 1;")
        let text = """
            { "version": 1, "services": [
              { "name": "configuration", "provider": "configuration", "options": { "path": "settings.json" } },
              \(service)
            ] }
            """
        let config = try ConfigLoader.load(text: text, file: "/app/notes.json", pathRoots: ["data": "/support"])
        let options = try SQLiteOptions(config.specs[1].options)
        #expect(options.path == "$data/notes.sqlite")
        #expect(options.fileProtection == .completeUntilFirstUserAuthentication)
        #expect(options.migrations?.map(\.name) == ["create_sessions", "create_notes"])
        #expect(config.specs[1].timeout == .seconds(5) && config.specs[1].retry == RetryPolicy(maxAttempts: 3))
    }
}
