public import Container

/// The `sqlite` provider: opens a real SQLite database (the SDK's `SQLite3` module on Apple
/// platforms, the system `libsqlite3` on Linux) in WAL mode and applies its versioned
/// migrations, recorded in `schema_migrations`.
///
/// Options:
/// - `path` (required): the database file, relative to the config file's folder, or starting at
///   a folder the app supplies (`"$data/app.sqlite"`, see ``/Container/ServiceOptions/pathRoots``); `:memory:`
///   for an in-memory database. The folder must exist (an app creates its Application Support).
///   A new file is created readable by its owner only (`0600`).
/// - `migrations` (optional): `[{"version": 1, "name": "create_x", "sql": "CREATE TABLE ..."}]`;
///   ``Migration/standard`` when absent. Listed in `secretOptions`, a failing migration's
///   error names its version and SQLite's result code only (``Migration/isSecret``).
/// - `busyTimeoutMs` (optional, 0 to 600000, default 5000): how long a statement waits for
///   another connection's lock before failing transiently (`SQLITE_BUSY`).
///
/// Opening and migrating end as soon as the node's run is cancelled (its `timeoutMs`, a
/// reset), also while SQLite waits for a lock: see ``Database/open(path:migrations:busyTimeout:)``.
///
/// Teardown closes the database.
public struct SQLiteProvider: ServiceProvider {
    /// `sqlite`.
    public let id = "sqlite"

    /// The largest `busyTimeoutMs`: ten minutes.
    public static let maximumBusyTimeoutMs = 600_000

    /// Creates the provider.
    public init() {}

    /// Requires a string `path` (with a known path root, if any), well-formed `migrations` and a
    /// `busyTimeoutMs` within bounds.
    public func validate(options: ServiceOptions) throws {
        if try options.string("path") != ":memory:" { _ = try options.path("path") }
        _ = try Migration.list(from: options)
        _ = try Self.busyTimeout(from: options)
    }

    /// Opens the database and migrates it; cancellation (the node's timeout) ends the work.
    public func make(_ context: ProviderContext) async throws -> Database {
        let raw = try context.options.string("path")
        let path = raw == ":memory:" ? raw : try context.options.path("path")
        return try await Database.open(
            path: path, migrations: try Migration.list(from: context.options),
            busyTimeout: try Self.busyTimeout(from: context.options))
    }

    /// Closes the database.
    public var tearDown: (@Sendable (Database) async throws -> Void)? {
        { database in try database.close() }
    }

    /// The `busyTimeoutMs` option (default 5000 ms).
    static func busyTimeout(from options: ServiceOptions) throws(OptionError) -> Duration {
        let milliseconds = try options.int("busyTimeoutMs", default: 5_000)
        guard (0...maximumBusyTimeoutMs).contains(milliseconds) else {
            throw .invalid(
                "busyTimeoutMs", "must be between 0 and \(maximumBusyTimeoutMs) (ten minutes), found \(milliseconds)")
        }
        return .milliseconds(milliseconds)
    }
}
