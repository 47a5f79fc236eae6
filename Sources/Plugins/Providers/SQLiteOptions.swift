public import Container

/// The options of the `sqlite` provider, typed: what a config's `"options"` object says for a
/// database, written in code.
///
/// ```swift
/// let database = ServiceSpec.sqlite(
///     .database,
///     SQLiteOptions(
///         path: support.appendingPathComponent("app.sqlite").path,
///         migrations: [
///             Migration.sessionsTable,
///             Migration(version: 2, name: "create_notes", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"),
///         ],
///         fileProtection: .completeUntilFirstUserAuthentication),
///     dependsOn: .configuration)
/// ```
///
/// ``serviceOptions`` is exactly what a config file with the same values gives the provider,
/// and ``init(_:)`` reads a config's options back (the provider reads its options with it, once,
/// in ``SQLiteProvider/settings(from:)``), so both are checked the same way.
public struct SQLiteOptions: Sendable, Hashable {
    /// The database file (`path`): absolute, `":memory:"`, relative (in code: to the current
    /// directory; in a config: to its folder), or starting at a path root (`"$data/app.sqlite"`,
    /// which needs ``/Container/ServiceOptions/pathRoots``: in code, give the absolute path).
    public var path: String
    /// The schema (`migrations`); `nil` (the option absent): the provider's
    /// ``SQLiteProvider/defaultMigrations`` (``Migration/standard``). When any migration is
    /// secret (``Migration/isSecret``), the option is marked secret, and so are all of them, as a
    /// config's `"secretOptions": ["migrations"]` makes them.
    public var migrations: [Migration]?
    /// How long a statement waits for another connection's lock (`busyTimeoutMs`, in whole
    /// milliseconds, 0 to ``SQLiteProvider/maximumBusyTimeoutMs``); 5 seconds by default.
    public var busyTimeout: Duration
    /// The Data Protection class of the files on Apple platforms (`fileProtection`); `nil`: the
    /// system's default class. Checked, and without effect, on Linux.
    public var fileProtection: SQLiteFileProtection?

    /// The default busy timeout: 5 seconds.
    public static let defaultBusyTimeout: Duration = .seconds(5)

    /// Creates the options.
    public init(
        path: String, migrations: [Migration]? = nil, busyTimeout: Duration = defaultBusyTimeout,
        fileProtection: SQLiteFileProtection? = nil
    ) {
        self.path = path
        self.migrations = migrations
        self.busyTimeout = busyTimeout
        self.fileProtection = fileProtection
    }

    /// Reads a service's options as the `sqlite` provider does (the path as written, not
    /// resolved against the config's folder or path roots).
    /// - Throws: ``/Container/OptionError`` naming the option that is missing, of the wrong
    ///   type or out of bounds, or any other option (but `description` and options marked secret).
    public init(_ options: ServiceOptions) throws(OptionError) {
        try options.refuseUnknownKeys(
            ["path", "migrations", "busyTimeoutMs", "fileProtection", "description"], provider: "sqlite")
        path = try options.string("path")
        guard !path.isEmpty else {
            throw .invalid("path", "must not be empty; give the database file's path, or \":memory:\"")
        }
        migrations = options["migrations"] == nil ? nil : try Migration.list(from: options)
        let milliseconds = try options.int("busyTimeoutMs", default: Self.milliseconds(Self.defaultBusyTimeout))
        guard (0...SQLiteProvider.maximumBusyTimeoutMs).contains(milliseconds) else {
            throw .invalid(
                "busyTimeoutMs",
                "must be between 0 and \(SQLiteProvider.maximumBusyTimeoutMs) (ten minutes), found \(milliseconds)")
        }
        busyTimeout = .milliseconds(milliseconds)
        fileProtection = try SQLiteFileProtection.option(from: options)
    }

    /// The options a config file with these values gives the provider: `path`, and
    /// `busyTimeoutMs`, `migrations` and `fileProtection` when they are not the defaults (a
    /// config that leaves them out).
    public var serviceOptions: ServiceOptions {
        var values: [String: ServiceOptions.Value] = ["path": .string(path)]
        if busyTimeout != Self.defaultBusyTimeout { values["busyTimeoutMs"] = .int(Self.milliseconds(busyTimeout)) }
        var secretKeys: Set<String> = []
        if let migrations {
            values["migrations"] = .array(migrations.map(\.optionValue))
            if migrations.contains(where: \.isSecret) { secretKeys.insert("migrations") }
        }
        if let fileProtection { values["fileProtection"] = .string(fileProtection.word) }
        return ServiceOptions(values, secretKeys: secretKeys)
    }

    /// `duration` in whole milliseconds (rounded toward zero), clamped to `Int`.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        guard !overflow, !carry else { return seconds < 0 ? Int.min : Int.max }
        return Int(clamping: total)
    }
}

extension Migration {
    /// The migration as a config writes it: `{"version": 1, "name": "...", "sql": "..."}`.
    var optionValue: ServiceOptions.Value {
        .object(["version": .int(version), "name": .string(name), "sql": .string(sql)])
    }
}
