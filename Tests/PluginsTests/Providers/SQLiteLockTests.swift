import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// A node's `timeoutMs` holds while SQLite waits: a locked file (another connection in
/// `BEGIN EXCLUSIVE`) or a long statement ends the node at its timeout, not at SQLite's own
/// end, the connection is closed, and a busy file without a timeout fails transiently after the
/// busy timeout.
///
/// No test compares durations: each wait SQLite could not give up would last ten minutes (a
/// busy timeout of 600 s, or a statement of about 10^15 steps), so a node that ends at all
/// within the 60 s bound was interrupted, and the tests check that it ended while the lock was
/// still held or the statement unfinished. (Comparing how late the node ended against a control
/// node failed under load: the whole process stalled between the two measurements.)
@Suite("SQLite waits end with the node's timeout", .timeLimit(.minutes(3)))
struct SQLiteLockTests {
    @Test func aTimeoutEndsTheWaitForALockedDatabaseAndLeaksNoConnection() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = fixture.directory.appendingPathComponent("locked.sqlite").path
        let holder = try Database(path: path, migrations: [])
        try holder.execute("BEGIN EXCLUSIVE")

        let config = try ConfigLoader.load(
            path: try fixture.write(
                "locked.json",
                """
                { "version": 1, "services": [
                  { "name": "database", "provider": "sqlite", "timeoutMs": 3000,
                    "options": { "path": "locked.sqlite", "busyTimeoutMs": 600000 } }
                ] }
                """))
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the locked start") { try await container.start() }
        }
        #expect(error?.failure == .transient)
        guard case .failed(let failure)? = error?.report?.outcome(of: "database") else {
            Issue.record("the database node should have failed, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .transient)
        // The node's timeout ended it while the holder still held its lock: the 600 s busy wait
        // was given up, not waited out. (3 s, so that the start below, which opens, migrates
        // and commits within the same timeout, has room on a loaded machine.)
        #expect(failure.message.contains("did not finish within its timeout"))

        // The timed-out run closed its connection: once the holder is gone, no descriptor of
        // the file is open (SQLite keeps a closed connection's descriptor while another
        // connection of the process holds a lock on the file, so check after the holder).
        try holder.execute("ROLLBACK")
        try holder.close()
        #expect(try Self.openDescriptors(of: path) == 0)

        // The next start opens and migrates the now free file: the failure was transient.
        let services = try await withTimeout { try await container.start() }
        #expect(services.report.attempt == 2)
        // The standard schema: the sessions table alone.
        #expect(try services[.database].appliedMigrations.map(\.version) == [1])
        try await withTimeout { try await container.shutdown() }
        #expect(try Self.openDescriptors(of: path) == 0)
    }

    @Test func aTimeoutInterruptsALongMigration() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        // About 10^15 rows to count: days of work that only an interrupt ends.
        let config = try ConfigLoader.load(
            path: try fixture.write(
                "slow.json",
                """
                { "version": 1, "services": [
                  { "name": "database", "provider": "sqlite", "timeoutMs": 300, "options": { "path": "slow.sqlite",
                    "migrations": [ { "version": 1, "name": "count", "sql":
                      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000000000) SELECT count(*) FROM c;" } ] } }
                ] }
                """))
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the slow start") { try await container.start() }
        }
        #expect(error?.failure == .transient)
        #expect(Self.failureMessage(of: "database", in: error)?.contains("timeout of 300ms") == true)
        // Interrupted inside the migrations' transaction: nothing was recorded.
        let database = try Database(
            path: fixture.directory.appendingPathComponent("slow.sqlite").path, migrations: [])
        #expect(try database.schemaVersion() == 0)
        try database.close()
        try await withTimeout { try await container.shutdown() }
    }

    @Test func aCancellableQueryEndsWithItsNodeAndTheConnectionStaysUsable() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = fixture.directory.appendingPathComponent("shared.sqlite").path
        let database = try Database(path: path, busyTimeout: .seconds(600))
        let holder = try Database(path: path, migrations: [])
        try holder.execute("BEGIN EXCLUSIVE")
        let writer = ServiceSpec(ServiceKey<Int>("writer"), timeout: .milliseconds(300)) { _ in
            try await database.withCancellation {
                try $0.execute("INSERT INTO sessions (user_id, token) VALUES ('x', 'x')")
            }
        }
        let container = try ServiceContainer([writer])
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the blocked write") { try await container.start() }
        }
        #expect(error?.failure == .transient)
        // The node's timeout ended it while the holder still held its lock: the 600 s busy wait
        // was given up, not waited out.
        #expect(Self.failureMessage(of: "writer", in: error)?.contains("timeout of 300ms") == true)

        // The cancellation does not stick to the connection: once the lock is released it works.
        try holder.execute("ROLLBACK")
        #expect(try database.execute("INSERT INTO sessions (user_id, token) VALUES ('y', 'y')") == 1)
        #expect(
            try await database.withCancellation { try $0.query("SELECT COUNT(*) AS n FROM sessions") }
                .first?["n"]?.int == 1)
        try holder.close()
        try database.close()
        try await withTimeout { try await container.shutdown() }
    }

    @Test func aBusyDatabaseIsATransientFailureWithAHint() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let path = fixture.directory.appendingPathComponent("busy.sqlite").path
        let holder = try Database(path: path, migrations: [])
        try holder.execute("BEGIN EXCLUSIVE")
        defer {
            _ = try? holder.execute("ROLLBACK")
            try? holder.close()
        }

        let error = #expect(throws: DatabaseError.self) {
            _ = try Database(path: path, busyTimeout: .milliseconds(50))
        }
        #expect(error?.code == 5)
        #expect(error?.failureKind == .transient)
        #expect(error?.description.contains("[SQLITE_BUSY]; another connection holds a lock") == true)

        // The same through the provider, with its busyTimeoutMs and no node timeout.
        let config = try ConfigLoader.load(
            path: try fixture.write(
                "busy.json",
                """
                { "version": 1, "services": [
                  { "name": "database", "provider": "sqlite", "options": { "path": "busy.sqlite", "busyTimeoutMs": 50 } }
                ] }
                """))
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let failed = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the busy start") { try await container.start() }
        }
        #expect(failed?.failure == .transient)
        #expect(failed?.message.contains("SQLITE_BUSY") == true)
        try await withTimeout { try await container.shutdown() }
    }

    @Test func busyTimeoutMsIsBounded() {
        let error = loadError(
            """
            { "version": 1, "services": [
              { "name": "database", "provider": "sqlite", "options": { "path": "x.sqlite", "busyTimeoutMs": 600001 } }
            ] }
            """)
        #expect(error?.codes == [.invalidOptions])
        #expect(error?.description.contains("busyTimeoutMs': must be between 0 and 600000") == true)
    }

    // MARK: Helpers

    /// The message of `node`'s failure in the report `error` carries, if it failed.
    static func failureMessage(of node: String, in error: ContainerError?) -> String? {
        guard case .failed(let failure)? = error?.report?.outcome(of: node) else { return nil }
        return failure.message
    }

    /// How many of this process's file descriptors are open on `path` or its `-wal`, `-shm`
    /// and `-journal` files (Linux: `/proc/self/fd`; elsewhere the check is skipped as 0).
    static func openDescriptors(of path: String) throws -> Int {
        let folder = "/proc/self/fd"
        guard FileManager.default.fileExists(atPath: folder) else { return 0 }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        return names.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name) else {
                return false
            }
            return [path, path + "-wal", path + "-shm", path + "-journal"].contains(target)
        }
    }
}
