public import Container

/// The options of the `session` provider, typed: the database service it restores the
/// session from.
public struct SessionOptions: Sendable, Hashable {
    /// The database service to read (`database`); the service must depend on it.
    public var database: ServiceKey<Database>

    /// Creates the options; by default the session is read from the `database` service.
    public init(database: ServiceKey<Database> = .database) { self.database = database }

    /// Reads a service's options as the `session` provider does.
    /// - Throws: ``/Container/OptionError`` when `database` is not a string, or for any other
    ///   option (but `description` and options marked secret).
    public init(_ options: ServiceOptions) throws(OptionError) {
        try options.refuseUnknownKeys(["database", "description"], provider: "session")
        database = ServiceKey(try options.string("database", default: ServiceKey.database.name))
    }

    /// The options a config file with this database gives the provider: none for the default
    /// `database` (as a config that leaves the option out), else `{"database": name}`.
    public var serviceOptions: ServiceOptions {
        database == .database ? ServiceOptions() : ServiceOptions(["database": .string(database.name)])
    }
}
