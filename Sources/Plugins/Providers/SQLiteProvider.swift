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
///   when absent, the provider's ``defaultMigrations`` (``Migration/standard``, the `sessions`
///   table, unless the app made the provider with its own). Listed in `secretOptions`, a
///   failing migration's error names its version and SQLite's result code only
///   (``Migration/isSecret``).
/// - `busyTimeoutMs` (optional, 0 to 600000, default 5000): how long a statement waits for
///   another connection's lock before failing transiently (`SQLITE_BUSY`).
/// - `fileProtection` (optional): `complete`, `completeUnlessOpen`,
///   `completeUntilFirstUserAuthentication` or `none`, the Data Protection class of the files
///   on Apple platforms (``SQLiteFileProtection``); checked, and without effect, on Linux.
///
/// In code, ``SQLiteOptions`` writes these options and `ServiceSpec.sqlite(_:_:dependsOn:)`
/// declares the service (<doc:DeclaringServicesInCode>).
///
/// Opening and migrating end as soon as the node's run is cancelled (its `timeoutMs`, a
/// reset), also while SQLite waits for a lock: see
/// ``Database/open(path:migrations:busyTimeout:fileProtection:)``.
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

    /// Reads the options once, when the graph is validated: a string `path` (with a known path
    /// root, if any), well-formed `migrations`, a `busyTimeoutMs` within bounds and a known
    /// `fileProtection` (``SQLiteOptions/init(_:)``), the path resolved against the config's folder
    /// or its path root (`:memory:` as it is).
    /// - Throws: ``/Container/OptionError`` naming the option that is wrong.
    public func settings(from options: ServiceOptions) throws(OptionError) -> SQLiteOptions {
        var settings = try SQLiteOptions(options)
        if settings.path != ":memory:" { settings.path = try options.path("path") }
        return settings
    }

    /// Opens the database and migrates it, with the settings read at validation; cancellation
    /// (the node's timeout) ends the work.
    public func make(_ context: ProviderContext) async throws -> Database {
        let settings = try context.settings(for: self)
        return try await Database.open(
            path: settings.path, migrations: settings.migrations ?? defaultMigrations,
            busyTimeout: settings.busyTimeout, fileProtection: settings.fileProtection)
    }

    /// Closes the database.
    public var tearDown: (@Sendable (Database) async throws -> Void)? {
        { database in try database.close() }
    }
}
