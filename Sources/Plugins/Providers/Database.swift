import Container
internal import Synchronization

// Apple SDKs ship SQLite as the `SQLite3` module; elsewhere the `CSQLite` system library wraps
// the system's libsqlite3 (see Package.swift).
#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

/// A SQLite database opened by the `sqlite` provider: one connection, in WAL mode, with
/// versioned migrations applied.
///
/// Every call is serialized by ``connection`` (a `Mutex` around the `sqlite3` handle), so the
/// database can be shared by every entry point of a snapshot. ``close()`` is idempotent; any
/// call after it throws.
///
/// ```swift
/// let rows = try database.query("SELECT user_id FROM sessions ORDER BY id DESC LIMIT 1")
/// try database.execute("INSERT INTO launches (entry_point) VALUES (?)", ["launch"])
/// ```
public final class Database: Sendable {
    /// The file (or `:memory:`).
    public let path: String
    /// The migrations this open applied, in order (empty when the schema was already current).
    public let appliedMigrations: [Migration]
    /// SQLite's journal mode after opening: `wal` for files, `memory` for `:memory:`.
    public let journalMode: String

    /// The `sqlite3` handle; `nil` once closed. Every use of the handle happens inside this
    /// lock, which is why `Database` can be `Sendable` without `@unchecked`.
    private let connection: Locked<OpaquePointer?>

    /// Opens (creating if needed) the database at `path`, switches it to WAL mode and applies
    /// the `migrations` not yet recorded in `schema_migrations`.
    /// - Throws: ``DatabaseError``; the handle is closed again when opening or migrating fails.
    public init(path: String, migrations: [Migration] = Migration.standard) throws(DatabaseError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw DatabaseError(code: status, message: "cannot open: \(message)", path: path)
        }
        do throws(DatabaseError) {
            // Wait for other connections (another process, a test) instead of failing at once.
            sqlite3_busy_timeout(handle, 5_000)
            let mode = try Self.query(handle, path: path, "PRAGMA journal_mode=WAL", [])
            self.journalMode = mode.first?["journal_mode"]?.string ?? "unknown"
            try Self.exec(handle, path: path, "PRAGMA foreign_keys=ON")
            self.appliedMigrations = try Self.migrate(handle, path: path, migrations)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
        self.path = path
        self.connection = Locked(handle)
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
            throw DatabaseError(code: status, message: "closing failed (result code \(status))", path: path)
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

    private func withHandle<Result: Sendable>(
        _ body: (OpaquePointer) throws(DatabaseError) -> Result
    ) throws(DatabaseError) -> Result {
        let outcome: Swift.Result<Result, DatabaseError> = connection.withLock { handle in
            guard let open = handle else {
                return .failure(
                    DatabaseError(
                        code: -1,
                        message: "the database is closed (its generation was torn down); "
                            + "read the database from a current snapshot", path: path))
            }
            do throws(DatabaseError) {
                return .success(try body(open))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    // MARK: SQLite calls, always made with the lock held (or before the handle is shared)

    /// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func error(_ handle: OpaquePointer, path: String, _ context: String) -> DatabaseError {
        DatabaseError(
            code: sqlite3_errcode(handle), message: "\(context): \(String(cString: sqlite3_errmsg(handle)))",
            path: path)
    }

    /// Runs `sql`, which may hold several statements without parameters.
    private static func exec(_ handle: OpaquePointer, path: String, _ sql: String) throws(DatabaseError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw error(handle, path: path, "statement failed")
        }
    }

    private static func query(
        _ handle: OpaquePointer, path: String, _ sql: String, _ arguments: [SQLiteValue]
    ) throws(DatabaseError) -> [[String: SQLiteValue]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw error(handle, path: path, "cannot prepare statement")
        }
        defer { sqlite3_finalize(statement) }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch argument {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let value): status = sqlite3_bind_int64(statement, index, value)
            case .real(let value): status = sqlite3_bind_double(statement, index, value)
            case .text(let value): status = sqlite3_bind_text(statement, index, value, -1, transient)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient)
                }
            }
            guard status == SQLITE_OK else { throw error(handle, path: path, "cannot bind parameter \(index)") }
        }
        var rows: [[String: SQLiteValue]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw error(handle, path: path, "statement failed") }
            var row: [String: SQLiteValue] = [:]
            for column in 0..<sqlite3_column_count(statement) {
                let name = String(cString: sqlite3_column_name(statement, column))
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row[name] = .integer(sqlite3_column_int64(statement, column))
                case SQLITE_FLOAT: row[name] = .real(sqlite3_column_double(statement, column))
                case SQLITE_TEXT: row[name] = .text(String(cString: sqlite3_column_text(statement, column)))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    if let base = sqlite3_column_blob(statement, column) {
                        row[name] = .blob([UInt8](UnsafeRawBufferPointer(start: base, count: count)))
                    } else {
                        row[name] = .blob([])
                    }
                default: row[name] = .null
                }
            }
            rows.append(row)
        }
    }

    /// Applies the migrations not yet recorded, all in one `BEGIN IMMEDIATE` transaction so that
    /// two connections racing on a fresh file cannot both apply the same version.
    private static func migrate(
        _ handle: OpaquePointer, path: String, _ migrations: [Migration]
    ) throws(DatabaseError) -> [Migration] {
        try exec(handle, path: path, "BEGIN IMMEDIATE")
        do throws(DatabaseError) {
            // No UNIQUE constraint on `version`, on purpose: if a migration were ever applied
            // twice, the table would show it instead of hiding it behind a constraint error.
            try exec(
                handle, path: path,
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    applied_at TEXT NOT NULL
                )
                """)
            let done = Set(
                try query(handle, path: path, "SELECT version FROM schema_migrations", [])
                    .compactMap { $0["version"]?.int })
            var applied: [Migration] = []
            for migration in migrations.sorted(by: { $0.version < $1.version }) where !done.contains(migration.version)
            {
                do throws(DatabaseError) {
                    try exec(handle, path: path, migration.sql)
                } catch {
                    throw DatabaseError(
                        code: error.code,
                        message: "migration \(migration.version) '\(migration.name)' failed: \(error.message)",
                        path: path)
                }
                _ = try query(
                    handle, path: path,
                    "INSERT INTO schema_migrations (version, name, applied_at) "
                        + "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                    [.integer(Int64(migration.version)), .text(migration.name)])
                applied.append(migration)
            }
            try exec(handle, path: path, "COMMIT")
            return applied
        } catch {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}
