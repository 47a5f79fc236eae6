import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// The standard services declared in code (`ServiceSpec.configuration`, `.sqlite`, `.session`
/// with typed options) are what the equivalent config file declares: the same provider, the
/// same options, the same checks and the same database.
@Suite("Typed options of the standard providers")
struct TypedSpecTests {
    static let migrations = [
        Migration.sessionsTable,
        Migration(version: 2, name: "create_notes", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"),
        Migration(version: 3, name: "seed_user", sql: "INSERT INTO sessions (user_id, token) VALUES ('ada', 't-1');"),
    ]

    /// The typed declaration of `configuration -> database -> session` in `folder`.
    static func typedSpecs(in folder: URL, file: String) -> [ServiceSpec] {
        [
            .configuration(
                .configuration, ConfigurationOptions(path: folder.appendingPathComponent("settings.json").path),
                defaultFailure: .permanent),
            .sqlite(
                .database,
                SQLiteOptions(
                    path: folder.appendingPathComponent(file).path, migrations: migrations,
                    busyTimeout: .milliseconds(1_500), fileProtection: .completeUntilFirstUserAuthentication),
                dependsOn: .configuration, timeout: .seconds(5), retry: RetryPolicy(maxAttempts: 3)),
            .session(.session, dependsOn: .database, timeout: .seconds(2)),
        ]
    }

    /// The same services as a config file writes them.
    static func configText(in folder: URL, file: String) -> String {
        // The SQL as a JSON string: its line breaks escaped.
        let sql = migrations.map {
            #"{ "version": \#($0.version), "name": "\#($0.name)", "sql": "\#($0.sql.replacing("\n", with: "\\n"))" }"#
        }
        return """
            { "version": 1, "services": [
              { "name": "configuration", "provider": "configuration", "failure": "permanent",
                "options": { "path": "\(folder.appendingPathComponent("settings.json").path)" } },
              { "name": "database", "provider": "sqlite", "dependsOn": ["configuration"], "timeoutMs": 5000,
                "retry": 3, "options": {
                  "path": "\(folder.appendingPathComponent(file).path)", "busyTimeoutMs": 1500,
                  "fileProtection": "completeUntilFirstUserAuthentication",
                  "migrations": [\(sql.joined(separator: ", "))] } },
              { "name": "session", "provider": "session", "dependsOn": ["database"], "timeoutMs": 2000 }
            ] }
            """
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{ "appName": "Notes" }"#.utf8).write(to: folder.appendingPathComponent("settings.json"))
        return folder
    }

    @Test("A typed spec declares what the config file does: provider, dependencies, policy and options")
    func sameDeclaration() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let typed = Self.typedSpecs(in: folder, file: "app.sqlite")
        let config = try ConfigLoader.load(text: Self.configText(in: folder, file: "app.sqlite"), file: "app.json")
        #expect(typed.count == config.specs.count)
        for (code, file) in zip(typed, config.specs) {
            #expect(code.name == file.name)
            #expect(code.provider.id == file.provider.id)
            #expect(code.dependsOn == file.dependsOn)
            #expect(code.options.values == file.options.values, "\(code.name)")
            #expect(code.options.secretKeys == file.options.secretKeys)
            #expect(code.timeout == file.timeout && code.retry == file.retry)
            #expect(code.defaultFailure == file.defaultFailure && code.lifetime == file.lifetime)
        }
        // Read back as the providers read them, the config's options are the typed ones.
        #expect(try SQLiteOptions(config.specs[1].options) == SQLiteOptions(typed[1].options))
        #expect(try SQLiteOptions(config.specs[1].options).migrations == Self.migrations)
        #expect(try ConfigurationOptions(config.specs[0].options) == ConfigurationOptions(typed[0].options))
        #expect(try SessionOptions(config.specs[2].options) == SessionOptions())
        // The typed dependencies are checked by validation too; the names are the config's.
        #expect(typed[1].typedDependencies == [ServiceKey.configuration.erased])
    }

    @Test("Both build the same database: the same migrations applied and recorded, the same session")
    func sameBehaviour() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let typed = try ServiceContainer(Self.typedSpecs(in: folder, file: "typed.sqlite"))
        let config = try ConfigLoader.load(text: Self.configText(in: folder, file: "config.sqlite"), file: "app.json")
        let loaded = ServiceContainer(graph: config.graph, policy: config.policy)
        func built(_ container: ServiceContainer) async throws -> (
            applied: [Migration], recorded: [String], user: String?
        ) {
            let services = try await withTimeout { try await container.start() }
            let database = try services[.database]
            let recorded = try database.query("SELECT version, name FROM schema_migrations ORDER BY version")
                .map { "\($0["version"]?.int ?? 0) \($0["name"]?.string ?? "")" }
            return (database.appliedMigrations, recorded, try services[.session].userID)
        }
        let fromCode = try await built(typed)
        let fromFile = try await built(loaded)
        #expect(fromCode.applied == Self.migrations && fromFile.applied == Self.migrations)
        #expect(fromCode.recorded == ["1 create_sessions", "2 create_notes", "3 seed_user"])
        #expect(fromCode.recorded == fromFile.recorded)
        #expect(fromCode.user == "ada" && fromFile.user == "ada")
        #expect(try typed.current?[.database].busyTimeout == .milliseconds(1_500))
        _ = try await typed.shutdown()
        _ = try await loaded.shutdown()
    }

    @Test("Options the provider rejects are rejected the same way, from code and from a file")
    func sameValidation() throws {
        let duplicate = [Migration.sessionsTable, Migration(version: 1, name: "again", sql: "SELECT 1;")]
        let cases: [(SQLiteOptions, String)] = [
            (SQLiteOptions(path: ":memory:", busyTimeout: .seconds(601)), #""busyTimeoutMs": 601000"#),
            (SQLiteOptions(path: ":memory:", busyTimeout: .milliseconds(-1)), #""busyTimeoutMs": -1"#),
            (
                SQLiteOptions(path: ":memory:", migrations: duplicate),
                #""migrations": [{ "version": 1, "name": "create_sessions", "sql": "x" }, "#
                    + #"{ "version": 1, "name": "again", "sql": "SELECT 1;" }]"#
            ),
            (SQLiteOptions(path: "$data/app.sqlite"), #""path": "$data/app.sqlite""#),
        ]
        for (options, json) in cases {
            let fromCode = #expect(throws: GraphError.self) { try ServiceGraph([.sqlite(.database, options)]) }
            let text =
                #"{ "version": 1, "services": [ { "name": "database", "provider": "sqlite", "options": { "#
                + (json.hasPrefix(#""path""#) ? json : #""path": ":memory:", "# + json) + " } } ] }"
            let fromFile = #expect(throws: ConfigError.self) { try ConfigLoader.load(text: text, file: "db.json") }
            #expect(fromCode?.issues.map(\.code) == [.invalidOptions], "\(json)")
            #expect(fromFile?.issues.map(\.code) == [.invalidOptions], "\(json)")
            #expect(fromCode?.issues.first?.option == fromFile?.issues.first?.option, "\(json)")
            #expect(fromCode?.issues.first?.message == fromFile?.issues.first?.message, "\(json)")
        }
    }

    @Test("A secret migration marks the option secret, as secretOptions does; defaults are left out")
    func secretsAndDefaults() throws {
        let secret = Migration(version: 1, name: "create_keys", sql: "CREATE TABLE keys (k TEXT);", isSecret: true)
        let options = SQLiteOptions(path: "/data/app.sqlite", migrations: [secret]).serviceOptions
        #expect(options.secretKeys == ["migrations"])
        #expect(try Migration.list(from: options).allSatisfy(\.isSecret))
        // A config that leaves the defaults out gives the same options as the typed defaults.
        #expect(SQLiteOptions(path: "/data/app.sqlite").serviceOptions.values == ["path": .string("/data/app.sqlite")])
        #expect(
            try SQLiteOptions(ServiceOptions(["path": .string("/data/app.sqlite")]))
                == SQLiteOptions(path: "/data/app.sqlite"))
        #expect(SessionOptions().serviceOptions.values.isEmpty)
        #expect(SessionOptions(database: ServiceKey("store")).serviceOptions.values == ["database": .string("store")])
    }

    @Test("A typed dependency of the wrong type is a validation error naming both types")
    func typedDependenciesAreChecked() {
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<String>("database")) { _ in "not a database" },
                .session(.session, dependsOn: ServiceKey<Database>("database")),
            ])
        }
        #expect(error?.issues.map(\.code) == [.typeMismatch])
    }
}
