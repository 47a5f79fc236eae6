public import Container

/// The `sqlite` provider: opens a real SQLite database (the system `libsqlite3`) in WAL mode
/// and applies its versioned migrations, recorded in `schema_migrations`.
///
/// Options:
/// - `path` (required): the database file, relative to the config file's folder, or starting at
///   a folder the app supplies (`"$data/app.sqlite"`, see ``ServiceOptions/pathRoots``); `:memory:`
///   for an in-memory database. The folder must exist (an app creates its Application Support).
/// - `migrations` (optional): `[{"version": 1, "name": "create_x", "sql": "CREATE TABLE ..."}]`;
///   ``Migration/standard`` when absent.
///
/// Teardown closes the database.
public struct SQLiteProvider: ServiceProvider {
    /// `sqlite`.
    public let id = "sqlite"

    /// Creates the provider.
    public init() {}

    /// Requires a string `path` (with a known path root, if any) and well-formed `migrations`.
    public func validate(options: ServiceOptions) throws {
        if try options.string("path") != ":memory:" { _ = try options.path("path") }
        _ = try Migration.list(from: options)
    }

    /// Opens the database and migrates it.
    public func make(_ context: ProviderContext) async throws -> Database {
        let raw = try context.options.string("path")
        let path = raw == ":memory:" ? raw : try context.options.path("path")
        return try Database(path: path, migrations: try Migration.list(from: context.options))
    }

    /// Closes the database.
    public var tearDown: (@Sendable (Database) async throws -> Void)? {
        { database in try database.close() }
    }
}
