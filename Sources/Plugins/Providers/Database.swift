import Container
internal import Synchronization

// Apple SDKs ship SQLite as the `SQLite3` module; elsewhere the `CSQLite` system library wraps
// the system's libsqlite3 (see Package.swift).
#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A SQLite database opened by the `sqlite` provider: one connection, in WAL mode, with
/// versioned migrations applied.
///
/// Every call is serialized by `connection` (a `Mutex` around the `sqlite3` handle), so the
/// database can be shared by every entry point of a snapshot. ``close()`` is idempotent; any
/// call after it throws.
///
/// A file the database creates is readable and writable by its owner only (`0600`), and so
/// are SQLite's `-wal`, `-shm` and `-journal` files next to it (SQLite gives them the
/// database file's permissions). An existing file keeps its permissions.
///
/// On iOS, tvOS, watchOS and visionOS devices, `fileProtection` gives the files SQLite creates
/// a Data Protection class (``SQLiteFileProtection``); a file that Data Protection keeps closed
/// for now fails to open with a transient error (``DatabaseError/isProtectedDataUnavailable``).
///
/// Waiting for another connection's lock is bounded by the busy timeout (5 s by default).
/// Work started through ``open(path:migrations:busyTimeout:fileProtection:)`` or ``withCancellation(_:)``
/// also ends as soon as the calling task is cancelled (a node's `timeoutMs`, a reset).
///
/// ```swift
/// let rows = try database.query("SELECT user_id FROM sessions ORDER BY id DESC LIMIT 1")
/// try database.execute("INSERT INTO sessions (user_id, token) VALUES (?, ?)", [.text(user), .text(token)])
/// ```
public final class Database: Sendable {
    /// The file (or `:memory:`).
    public let path: String
    /// The migrations this open applied, in order (empty when the schema was already current).
    public let appliedMigrations: [Migration]
    /// SQLite's journal mode after opening: `wal` for files, `memory` for `:memory:`.
    public let journalMode: String
    /// The longest a statement waits for another connection's lock before failing with
    /// `SQLITE_BUSY` (a transient ``DatabaseError``).
    public let busyTimeout: Duration

    /// The `sqlite3` handle; `nil` once closed. Every use of the handle happens inside this
    /// lock, which is why `Database` can be `Sendable` without `@unchecked`.
    private let connection: Locked<OpaquePointer?>

    /// Opens (creating if needed) the database at `path`, switches it to WAL mode and applies
    /// the `migrations` not yet recorded in `schema_migrations`.
    ///
    /// Blocks the calling thread while it waits for locks (up to `busyTimeout` per wait); use
    /// ``open(path:migrations:busyTimeout:fileProtection:)`` from a task that may be cancelled.
    /// - Parameters:
    ///   - path: the file, or `:memory:`; its folder must exist.
    ///   - migrations: the schema; those not yet recorded in `schema_migrations` are applied.
    ///   - busyTimeout: the longest a statement waits for another connection's lock.
    ///   - fileProtection: the Data Protection class of the files SQLite creates, on iOS-family
    ///     devices; `nil`: the system's default. Without effect elsewhere.
    /// - Throws: ``DatabaseError``; the handle is closed again when opening or migrating fails.
    public init(
        path: String, migrations: [Migration] = Migration.standard, busyTimeout: Duration = .seconds(5),
        fileProtection: SQLiteFileProtection? = nil
    ) throws(DatabaseError) {
        let existed = Self.exists(path)
        let protection = Self.openFlag(for: fileProtection, path: path)
        // A file made here would get the system's default class, not the one asked for: with a
        // class, SQLite creates the file, and it is made owner-only right after (below).
        if protection == 0 { createOwnerOnly(path) }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | protection
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let handle = opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let systemErrno = opened.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(opened)
            throw DatabaseError(
                code: status, message: "cannot open: \(message)", path: path, systemErrno: systemErrno,
                isProtectedDataUnavailable: Self.isProtectedDataUnavailable(
                    code: status, systemErrno: systemErrno, fileExisted: existed))
        }
        // Before the first write creates the -wal and -shm files, which copy its permissions.
        if protection != 0 && !existed { _ = chmod(path, 0o600) }
        // Wait for other connections (another process, a test) instead of failing at once.
        sqlite3_busy_timeout(handle, SQLiteCancellation.milliseconds(busyTimeout))
        let cancellation = SQLiteCancellation.current
        do throws(DatabaseError) {
            if let cancellation, !cancellation.attach(handle, busyTimeout: busyTimeout) {
                throw DatabaseError(code: SQLITE_INTERRUPT, message: "cancelled before opening", path: path)
            }
            // Detached before the handle is closed below or shared: see SQLiteCancellation.
            defer { cancellation?.detach(handle, busyTimeout: busyTimeout) }
            let mode = try Self.query(handle, path: path, "PRAGMA journal_mode=WAL", [])
            self.journalMode = mode.first?["journal_mode"]?.string ?? "unknown"
            try Self.exec(handle, path: path, "PRAGMA foreign_keys=ON")
            self.appliedMigrations = try Self.migrate(handle, path: path, migrations)
        } catch {
            // SQLite opens the file lazily in places: the first read of a protected file fails here.
            let systemErrno = sqlite3_system_errno(handle)
            sqlite3_close_v2(handle)
            guard Self.isProtectedDataUnavailable(code: error.code, systemErrno: systemErrno, fileExisted: existed)
            else { throw error }
            throw DatabaseError(
                code: error.code, message: error.message, path: path, systemErrno: systemErrno,
                isProtectedDataUnavailable: true)
        }
        self.path = path
        self.busyTimeout = busyTimeout
        self.connection = Locked(handle)
    }

    /// Opens the database like ``init(path:migrations:busyTimeout:fileProtection:)``, ending its waits and
    /// migrations as soon as the calling task is cancelled: the `sqlite` provider's way, so
    /// that a node's `timeoutMs` holds even while another connection locks the file.
    ///
    /// The blocking work runs on a Dispatch thread of its own, not on the Swift concurrency
    /// pool (one thread per core), whose threads must stay free to run the timers and
    /// cancellations that end such waits. The task waits for the work to end, so a cancelled
    /// open has closed its connection when this throws.
    /// - Throws: ``DatabaseError``, or `CancellationError` when the task was cancelled first
    ///   (nothing is committed then: the migrations' transaction rolled back, the handle is closed).
    public static func open(
        path: String, migrations: [Migration] = Migration.standard, busyTimeout: Duration = .seconds(5),
        fileProtection: SQLiteFileProtection? = nil
    ) async throws -> Database {
        try await SQLiteCancellation.run {
            try Database(path: path, migrations: migrations, busyTimeout: busyTimeout, fileProtection: fileProtection)
        }
    }

    deinit {
        connection.withLock { handle in
            if let open = handle { sqlite3_close_v2(open) }
            handle = nil
        }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { connection.withLock { $0 == nil } }

    /// Closes the connection; later calls fail. Calling it again does nothing.
    /// - Throws: ``DatabaseError`` when SQLite reports an error while closing.
    public func close() throws(DatabaseError) {
        let status: Int32 = connection.withLock { handle in
            guard let open = handle else { return SQLITE_OK }
            handle = nil
            return sqlite3_close_v2(open)
        }
        guard status == SQLITE_OK else {
            throw DatabaseError(code: status, message: "closing failed", path: path)
        }
    }

    /// Runs one statement that returns no rows, binding `arguments` to its `?` parameters.
    /// - Returns: the number of rows changed.
    /// - Throws: ``DatabaseError``.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLiteValue] = []) throws(DatabaseError) -> Int {
        try withHandle { handle throws(DatabaseError) in
            _ = try Self.query(handle, path: path, sql, arguments)
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs one query, binding `arguments` to its `?` parameters.
    /// - Returns: every row, as column name to value.
    /// - Throws: ``DatabaseError``.
    public func query(_ sql: String, _ arguments: [SQLiteValue] = []) throws(DatabaseError) -> [[String: SQLiteValue]] {
        try withHandle { handle throws(DatabaseError) in try Self.query(handle, path: path, sql, arguments) }
    }

    /// The highest version recorded in `schema_migrations` (0 when none).
    /// - Throws: ``DatabaseError``.
    public func schemaVersion() throws(DatabaseError) -> Int {
        try query("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations").first?["version"]?.int ?? 0
    }

    /// Runs `work` (calls of this database) so that the calling task's cancellation ends its
    /// waits for locks and its statements at once, instead of after the busy timeout.
    ///
    /// Like ``open(path:migrations:busyTimeout:fileProtection:)``, `work` runs on a Dispatch thread of its own;
    /// the cancellation is not kept by the connection: later calls run normally.
    ///
    /// ```swift
    /// let rows = try await database.withCancellation { try $0.query("SELECT token FROM sessions") }
    /// ```
    /// - Throws: what `work` throws, or `CancellationError` when the task was cancelled and
    ///   `work` failed. A result `work` returns despite a late cancellation is returned.
    public func withCancellation<Result: Sendable>(
        _ work: @escaping @Sendable (Database) throws -> Result
    ) async throws -> Result {
        try await SQLiteCancellation.run { try work(self) }
    }

    private func withHandle<Result: Sendable>(
        _ body: (OpaquePointer) throws(DatabaseError) -> Result
    ) throws(DatabaseError) -> Result {
        let cancellation = SQLiteCancellation.current
        let outcome: Swift.Result<Result, DatabaseError> = connection.withLock { handle in
            guard let open = handle else {
                return .failure(
                    DatabaseError(
                        code: -1,
                        message: "the database is closed (its generation was torn down); "
                            + "read the database from a current snapshot", path: path))
            }
            if let cancellation, !cancellation.attach(open, busyTimeout: busyTimeout) {
                return .failure(DatabaseError(code: SQLITE_INTERRUPT, message: "cancelled", path: path))
            }
            // Detached while the lock is still held: nobody can close the handle before.
            defer { cancellation?.detach(open, busyTimeout: busyTimeout) }
            do throws(DatabaseError) {
                return .success(try body(open))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// Creates `path` empty with owner-only permissions (`0600`) when it does not exist.
///
/// SQLite would create it `0644` minus the umask, readable by every user, and it gives the
/// `-wal`, `-shm` and `-journal` files the database file's permissions: creating the file
/// first protects all of them. `O_EXCL` leaves an existing file (and its permissions) alone;
/// when creating fails for another reason, SQLite's open reports it.
private func createOwnerOnly(_ path: String) {
    guard Database.isFile(path) else { return }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { return }
    // Whatever the umask.
    _ = fchmod(descriptor, 0o600)
    _ = close(descriptor)
}
