public import Container

/// The `sqlite` provider: opens a real SQLite database (the system `libsqlite3`) in WAL mode
/// and applies its versioned migrations, recorded in `schema_migrations`.
///
/// Options:
/// - `path` (required): the database file, relative to the config file's folder, or starting at
///   a folder the app supplies (`"$data/app.sqlite"`, see ``/Container/ServiceOptions/pathRoots``); `:memory:`
///   for an in-memory database. The folder must exist (an app creates its Application Support).
///   A new file is created readable by its owner only (`0600`).
/// - `migrations` (optional): `[{"version": 1, "name": "create_x", "sql": "CREATE TABLE ..."}]`;
///   when absent, the provider's ``defaultMigrations`` (``Migration/standard``, the `sessions`
///   table, unless the app made the provider with its own). Listed in `secretOptions`, a failing migration's
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

    /// The migrations of a service whose options list none.
    public let defaultMigrations: [Migration]

    /// Creates the provider.
    ///
    /// - Parameter defaultMigrations: the schema of a service whose options list no
    ///   `migrations`; ``Migration/standard`` by default. An app whose schema lives in code
    ///   registers the provider with it, so its config names only the file:
    ///
    /// ```swift
    /// var registry = ProviderRegistry()
    /// try registry.register(SQLiteProvider(defaultMigrations: MyApp.migrations))
    /// ```
    public init(defaultMigrations: [Migration] = Migration.standard) {
        self.defaultMigrations = defaultMigrations
    }

    /// Requires a string `path` (with a known path root, if any), well-formed `migrations` and a
    /// `busyTimeoutMs` within bounds.
    public func validate(options: ServiceOptions) throws {
        if try options.string("path") != ":memory:" { _ = try options.path("path") }
        _ = try Migration.list(from: options, default: defaultMigrations)
        _ = try Self.busyTimeout(from: options)
    }

    /// Opens the database and migrates it; cancellation (the node's timeout) ends the work.
    public func make(_ context: ProviderContext) async throws -> Database {
        let raw = try context.options.string("path")
        let path = raw == ":memory:" ? raw : try context.options.path("path")
        return try await Database.open(
            path: path, migrations: try Migration.list(from: context.options, default: defaultMigrations),
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
