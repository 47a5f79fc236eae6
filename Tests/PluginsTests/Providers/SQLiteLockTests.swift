import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// A node's `timeoutMs` holds while SQLite waits: a locked file (another connection in
/// `BEGIN EXCLUSIVE`) or a long statement ends the node within 500 ms of its timeout (beyond what
/// the machine delays every node), the connection is closed, and a busy file without a timeout
/// fails transiently after the busy timeout.
@Suite("SQLite waits end with the node's timeout", .timeLimit(.minutes(2)))
struct SQLiteLockTests {
    /// How late a node may end after its timeout, beyond how late a control node ended at the
    /// same time in the same process (``controlLateness()``: the same timeout, a provider that
    /// waits on a cancellable gate, no SQLite): what SQLite adds to give up a wait once
    /// cancelled. Measured alone: 1.5–9.3 ms (the goal is 100 ms). The whole suite in parallel
    /// on a loaded 2-core machine delays every node's end, SQLite or not, by up to 1.5 s; the
    /// control takes that out. The bound is far below what it replaces: before waits were
    /// cancellable, the 5 s busy timeout made the node about 4.7 s late.
    /// Under ThreadSanitizer, with the whole instrumented suite on 2 cores, SQLite's ends were
    /// seen 1.5 s later than the control's (every node 3.7 s late): 2 s there, still well
    /// below the 4.7 s the old defect added. With builds running beside the suite, SQLite's
    /// three nodes were once all seen 0.59 s later than the control (a stall of the whole
    /// process between the two measurements): 1 s outside ThreadSanitizer, still a quarter of
    /// what the defect added.
    /// Under ThreadSanitizer a CI run on a slower host saw SQLite's three nodes 2.3 s later than
    /// the control (4.2 s against 1.9 s): 3.5 s there, still below what the defect added on top
    /// of a node's normal lateness.
    static let allowedLateness: Duration = underThreadSanitizer ? .milliseconds(3_500) : .seconds(1)

    /// Whether this process runs under ThreadSanitizer (its runtime's entry points are present).
    static let underThreadSanitizer: Bool = {
        #if canImport(Darwin)
            let handle = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #else
            let handle: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #endif
        return dlsym(handle, "__tsan_acquire") != nil
    }()

    /// How late a node without SQLite ends after the same 300 ms timeout: its provider waits on
    /// a gate nobody opens, cancellable, so it ends as soon as the runtime can end it.
    static func controlLateness() async throws -> Duration {
        let recorder = TraceRecorder()
        let gate = Gate()
        let control = ServiceSpec(ServiceKey<Int>("control"), timeout: .milliseconds(300)) { _ in
            try await gate.cancellableWait()
            return 0
        }
        let container = try ServiceContainer([control], trace: [recorder])
        _ = try? await withTimeout(.seconds(60), "the control node") { try await container.start() }
        return try lateness(of: "control", timeout: .milliseconds(300), in: recorder.events)
    }

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
                  { "name": "database", "provider": "sqlite", "options": { "path": "locked.sqlite" }, "timeoutMs": 300 }
                ] }
                """))
        let recorder = TraceRecorder()
        let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [recorder])
        async let control = Self.controlLateness()
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the locked start") { try await container.start() }
        }
        #expect(error?.failure == .transient)
        guard case .failed(let failure)? = error?.report?.outcome(of: "database") else {
            Issue.record("the database node should have failed, got \(String(describing: error))")
            return
        }
        #expect(failure.kind == .transient)
        #expect(failure.message.contains("timeout of 300ms"))
        let lateness = try Self.lateness(of: "database", timeout: .milliseconds(300), in: recorder.events)
        let controlLateness = try await control
        #expect(
            lateness < controlLateness + Self.allowedLateness,
            "the node ended \(lateness) after its timeout; a node without SQLite, \(controlLateness)")

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
        // About a hundred million rows to count: seconds of work that only an interrupt ends early.
        let config = try ConfigLoader.load(
            path: try fixture.write(
                "slow.json",
                """
                { "version": 1, "services": [
                  { "name": "database", "provider": "sqlite", "timeoutMs": 300, "options": { "path": "slow.sqlite",
                    "migrations": [ { "version": 1, "name": "count", "sql":
                      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000000) SELECT count(*) FROM c;" } ] } }
                ] }
                """))
        let recorder = TraceRecorder()
        let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [recorder])
        async let control = Self.controlLateness()
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the slow start") { try await container.start() }
        }
        #expect(error?.failure == .transient)
        let lateness = try Self.lateness(of: "database", timeout: .milliseconds(300), in: recorder.events)
        let controlLateness = try await control
        #expect(
            lateness < controlLateness + Self.allowedLateness,
            "the node ended \(lateness) after its timeout; a node without SQLite, \(controlLateness)")
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
        let database = try Database(path: path)
        let holder = try Database(path: path, migrations: [])
        try holder.execute("BEGIN EXCLUSIVE")
        let writer = ServiceSpec(ServiceKey<Int>("writer"), timeout: .milliseconds(300)) { _ in
            try await database.withCancellation {
                try $0.execute("INSERT INTO sessions (user_id, token) VALUES ('x', 'x')")
            }
        }
        let recorder = TraceRecorder()
        let container = try ServiceContainer([writer], trace: [recorder])
        async let control = Self.controlLateness()
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the blocked write") { try await container.start() }
        }
        #expect(error?.failure == .transient)
        let lateness = try Self.lateness(of: "writer", timeout: .milliseconds(300), in: recorder.events)
        let controlLateness = try await control
        #expect(
            lateness < controlLateness + Self.allowedLateness,
            "the node ended \(lateness) after its timeout; a node without SQLite, \(controlLateness)")

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

    /// How long after `timeout` the node's failure was traced, measured from its start.
    static func lateness(of node: String, timeout: Duration, in events: [TraceEvent]) throws -> Duration {
        let started = try #require(
            events.first { if case .nodeStarted(node, _, _, _) = $0.kind { true } else { false } }?.time)
        let ended = try #require(
            events.first {
                if case .nodeFailed(node, _, _, _) = $0.kind { true } else { false }
            }?.time)
        return ended - started - timeout
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
