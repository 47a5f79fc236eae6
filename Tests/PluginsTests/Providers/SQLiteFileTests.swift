import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import Testing

/// What the `sqlite` provider does with real files: new files are owner-only, a damaged file is
/// a permanent failure that says how to recover, a secret migration's failure quotes no SQL.
struct SQLiteFileTests {
    static func permissions(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func newDatabaseFilesAndTheirWALAndSHMFilesAreOwnerOnly() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let services = try await withTimeout { try await container.start() }
        // While the connection is open in WAL mode, the -wal and -shm files exist.
        #expect(try services[.database].journalMode == "wal")
        for suffix in ["", "-wal", "-shm"] {
            let file = fixture.databasePath + suffix
            #expect(FileManager.default.fileExists(atPath: file), "\(file) should exist while the database is open")
            let mode = try Self.permissions(file)
            #expect(mode == 0o600, "\(file) is \(String(mode, radix: 8))")
        }
        try await withTimeout { try await container.shutdown() }
        #expect(try Self.permissions(fixture.databasePath) == 0o600)
    }

    @Test func anExistingFileKeepsItsPermissions() throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = fixture.directory.appendingPathComponent("shared.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o640]))
        let database = try Database(path: path)
        #expect(try Self.permissions(path) == 0o640)
        try database.close()
    }

    @Test func aFileThatIsNotADatabaseIsPermanentWithARecoveryHint() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = try fixture.write("app.sqlite", String(repeating: "not a database; ", count: 512))
        let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(error?.code == 26)
        #expect(error?.failureKind == .permanent)
        #expect(error?.description.contains("[SQLITE_NOTADB]; the file is damaged or is not a SQLite database") == true)
        #expect(error?.hint?.contains("restore it from a backup, or move it away together with its -wal") == true)

        // Through the container: a permanent, sticky failure that carries the hint.
        let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let failed = await #expect(throws: ContainerError.self) {
            try await withTimeout { try await container.start() }
        }
        #expect(failed?.failure == .permanent)
        #expect(failed?.message.contains("restore it from a backup") == true)
        try await withTimeout { try await container.shutdown() }
    }

    @Test func aDamagedDatabaseIsPermanentWithARecoveryHint() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = fixture.databasePath
        try Database(path: path).close()
        // Keep page 1 (the header and the schema), overwrite every table's pages.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        #expect(size > 4_096, "the migrated file has more than one page")
        try handle.seek(toOffset: 4_096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4_096))
        try handle.close()

        let error = #expect(throws: DatabaseError.self) { _ = try Database(path: path) }
        #expect(error?.code == 11)
        #expect(error?.failureKind == .permanent)
        #expect(error?.description.contains("[SQLITE_CORRUPT]; the file is damaged") == true)
    }

    @Test func aSecretMigrationsFailureQuotesNeitherItsSQLNorItsName() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let config = try ConfigLoader.load(
            path: try fixture.write(
                "secret.json",
                """
                { "version": 1, "services": [
                  { "name": "database", "provider": "sqlite", "secretOptions": ["migrations"],
                    "options": { "path": "secret.sqlite", "migrations": [
                      { "version": 1, "name": "zq_create", "sql": "CREATE TABLE zq_t (a INTEGER);" },
                      { "version": 2, "name": "zq_backfill", "sql": "INSERT INTO zq_t SELECT MIGSECRET_col FROM zq_t;" }
                    ] } }
                ] }
                """))
        #expect(config.specs[0].options.secretKeys == ["migrations"])
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let error = await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start() } }
        let message = try #require(error?.message)
        #expect(error?.failure == .permanent)
        #expect(message.contains("migration 2 failed; SQLite's message is withheld because the migrations are secret"))
        #expect(message.contains("[SQLITE_ERROR]"))
        for piece in ["MIGSECRET", "zq_backfill", "zq_t", "no such column"] {
            #expect(!message.contains(piece), "'\(piece)' in: \(message)")
        }
        try await withTimeout { try await container.shutdown() }

        // Without secretOptions the same failure quotes SQLite, which is what one needs to fix it.
        let migrations = try Migration.list(from: config.specs[0].options)
        #expect(migrations.allSatisfy { $0.isSecret })
        let plain = migrations.map { Migration(version: $0.version, name: $0.name, sql: $0.sql) }
        let path = fixture.directory.appendingPathComponent("plain.sqlite").path
        let plainError = #expect(throws: DatabaseError.self) { _ = try Database(path: path, migrations: plain) }
        #expect(
            plainError?.message == "migration 2 'zq_backfill' failed: statement failed: no such column: MIGSECRET_col")
    }

    @Test func anUnknownKeyInSecretMigrationsIsNotQuoted() throws {
        let text = """
            { "version": 1, "services": [
              { "name": "database", "provider": "sqlite", "secretOptions": %@,
                "options": { "path": ":memory:", "migrations": [
                  { "version": 1, "name": "m", "sql": "CREATE TABLE t (a);", "sk_live_QZXWVUTSRQ": 1 }
                ] } }
            ] }
            """
        let secret = try #require(loadError(text.replacingOccurrences(of: "%@", with: #"["migrations"]"#)))
        #expect(secret.issues.map(\.location.keyPath) == ["services[0].options.migrations[0]"])
        #expect(
            secret.description.contains("has a key other than version, name and sql (not shown: migrations is secret)"))
        #expect(!secret.description.contains("QZXWVUTSRQ"))
        #expect(secret.description.contains("migrations"), "the short secret 'm' is hidden as a word only")
        // Not secret: the key is named, with the known ones.
        let plain = try #require(loadError(text.replacingOccurrences(of: "%@", with: "[]")))
        #expect(plain.description.contains("unknown key 'sk_live_QZXWVUTSRQ'; the keys are version, name and sql"))
    }
}
