import Container

// Apple SDKs ship SQLite as the `SQLite3` module; elsewhere the `CSQLite` system library.
#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

// SQLite calls, always made with the connection's lock held (or before the handle is shared).
extension Database {
    /// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func error(_ handle: OpaquePointer, path: String, _ context: String) -> DatabaseError {
        DatabaseError(
            code: sqlite3_errcode(handle), message: "\(context): \(String(cString: sqlite3_errmsg(handle)))",
            path: path)
    }

    /// Runs `sql`, which may hold several statements without parameters.
    static func exec(_ handle: OpaquePointer, path: String, _ sql: String) throws(DatabaseError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw error(handle, path: path, "statement failed")
        }
    }

    static func query(
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
    static func migrate(
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
                // Between statements an interrupt is lost (SQLite clears it when none runs).
                if SQLiteCancellation.current?.isCancelled == true {
                    throw DatabaseError(code: SQLITE_INTERRUPT, message: "cancelled between migrations", path: path)
                }
                do throws(DatabaseError) {
                    try exec(handle, path: path, migration.sql)
                } catch {
                    throw failure(of: migration, error, path: path)
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

    /// The error of a failed migration. SQLite's message quotes the SQL (`no such column: x`,
    /// `near "x": syntax error`), so for a secret migration it is withheld, with the name:
    /// only the version and SQLite's result code are reported. The redactor would hide those
    /// pieces too; not writing them at all does not depend on it.
    private static func failure(of migration: Migration, _ error: DatabaseError, path: String) -> DatabaseError {
        guard migration.isSecret else {
            return DatabaseError(
                code: error.code,
                message: "migration \(migration.version) '\(migration.name)' failed: \(error.message)",
                path: path)
        }
        return DatabaseError(
            code: error.code,
            message: "migration \(migration.version) failed; SQLite's message is withheld because the migrations "
                + "are secret: run the migration's SQL on a copy of the database to see it",
            path: path)
    }
}
