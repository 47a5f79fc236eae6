public import Container

/// The `session` provider: restores the most recent session row from the database.
///
/// Depends on a `database` service (a ``Database``) whose schema has a `sessions` table
/// (`user_id`, `token`, `created_at`), as ``Migration/sessionsTable`` creates (the default schema of a `sqlite` service,
/// ``Migration/standard``). No row means
/// ``Session/signedOut``. The token is registered as a secret, so it is redacted from
/// every trace and error.
///
/// Options:
/// - `database` (optional): the name of the database service to read, default `database`.
public struct SessionProvider: ServiceProvider {
    /// `session`.
    public let id = "session"

    /// Creates the provider.
    public init() {}

    /// Accepts an optional string `database`.
    public func validate(options: ServiceOptions) throws {
        _ = try options.string("database", default: "database")
    }

    /// Reads the latest session row; the run's cancellation (its timeout) ends the read.
    public func make(_ context: ProviderContext) async throws -> Session {
        let name = try context.options.string("database", default: "database")
        let database = try context[ServiceKey<Database>(name)]
        // Cancellable: a node timeout ends a wait for another connection's lock at once.
        let rows = try await database.withCancellation { database in
            try database.query("SELECT user_id, token, created_at FROM sessions ORDER BY id DESC LIMIT 1")
        }
        guard let row = rows.first, let userID = row["user_id"]?.string, let token = row["token"]?.string else {
            return .signedOut
        }
        context.registerSecret(token)
        return Session(userID: userID, token: token, createdAt: row["created_at"]?.string)
    }
}
