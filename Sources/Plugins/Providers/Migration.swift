public import Container

/// One versioned schema change of a `sqlite` database.
///
/// Migrations are applied in version order, each in the same transaction as its row in the
/// `schema_migrations` table (`version`, `name`, `applied_at`), so that a migration runs at
/// most once per database file however many processes or containers open it.
public struct Migration: Sendable, Hashable {
    /// The version; migrations run in ascending order, and each version once.
    public let version: Int
    /// A short name, recorded in `schema_migrations`.
    public let name: String
    /// The SQL to run (several statements are allowed).
    public let sql: String
    /// Whether the migration is secret (the `migrations` option is in `secretOptions`): when it
    /// fails, its error reports the version and SQLite's result code only, never SQLite's
    /// message, which quotes the SQL, nor the name.
    public let isSecret: Bool

    /// Creates a migration.
    public init(version: Int, name: String, sql: String, isSecret: Bool = false) {
        self.version = version
        self.name = name
        self.sql = sql
        self.isSecret = isSecret
    }

    /// The `sessions` table the `session` provider reads (`id`, `user_id`, `token`,
    /// `created_at`), as version 1 `create_sessions`. Empty: no rows.
    public static let sessionsTable = Migration(
        version: 1, name: "create_sessions",
        sql: """
            CREATE TABLE sessions (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                user_id TEXT NOT NULL,
                token TEXT NOT NULL,
                created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
            );
            """)

    /// The schema a `sqlite` service gets when it lists no `migrations` (and its provider was
    /// made with no other default, ``SQLiteProvider/init(defaultMigrations:)``): the tables the
    /// standard providers read, which is ``sessionsTable`` alone. No rows.
    ///
    /// An app lists its own schema in the config's `migrations`, or in code
    /// (``SQLiteOptions/migrations``); a database migrated by an earlier version of this package
    /// keeps the versions it recorded.
    public static let standard: [Migration] = [sessionsTable]

    /// Reads the `migrations` option: a list of `{"version": 1, "name": "...", "sql": "..."}`
    /// with unique versions; `defaultMigrations` when the option is absent. When the option is
    /// secret, every migration read is (``isSecret``).
    /// - Throws: ``/Container/OptionError`` naming the offending entry.
    public static func list(
        from options: ServiceOptions, default defaultMigrations: [Migration] = standard
    ) throws(OptionError) -> [Migration] {
        guard let raw = options["migrations"] else { return defaultMigrations }
        guard case .array(let items) = raw else {
            throw .wrongType("migrations", expected: "a list of {version, name, sql} objects", found: raw.typeName)
        }
        var result: [Migration] = []
        var versions = Set<Int>()
        let isSecret = options.secretKeys.contains("migrations")
        for (index, item) in items.enumerated() {
            let key = "migrations[\(index)]"
            guard case .object(let fields) = item else {
                throw .wrongType(key, expected: "an object with version, name and sql", found: item.typeName)
            }
            if let unknown = fields.keys.sorted().first(where: { !["version", "name", "sql"].contains($0) }) {
                // A secret option's keys are its text too: not quoted.
                guard !isSecret else {
                    throw .invalid(key, "has a key other than version, name and sql (not shown: migrations is secret)")
                }
                let hint =
                    NameSuggestion.closest(to: unknown, among: ["version", "name", "sql"])
                    .map { "; did you mean '\($0)'?" } ?? "; the keys are version, name and sql"
                throw .invalid("\(key).\(unknown)", "unknown key '\(NameRules.visible(unknown))'\(hint)")
            }
            guard case .int(let version)? = fields["version"] else {
                throw .wrongType(
                    "\(key).version", expected: "an integer", found: fields["version"]?.typeName ?? "nothing")
            }
            guard case .string(let name)? = fields["name"] else {
                throw .wrongType("\(key).name", expected: "a string", found: fields["name"]?.typeName ?? "nothing")
            }
            guard case .string(let sql)? = fields["sql"] else {
                throw .wrongType("\(key).sql", expected: "a string of SQL", found: fields["sql"]?.typeName ?? "nothing")
            }
            guard version >= 1 else { throw .invalid("\(key).version", "versions start at 1") }
            guard versions.insert(version).inserted else {
                throw .invalid("\(key).version", "version \(version) is listed twice; each version must be unique")
            }
            result.append(Migration(version: version, name: name, sql: sql, isSecret: isSecret))
        }
        return result.sorted { $0.version < $1.version }
    }
}
