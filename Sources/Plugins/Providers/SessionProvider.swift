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

    /// Reads the options once, when the graph is validated: an optional string `database`
    /// (``SessionOptions/init(_:)``).
    /// - Throws: ``/Container/OptionError`` when `database` is not a string.
    public func settings(from options: ServiceOptions) throws(OptionError) -> SessionOptions {
        try SessionOptions(options)
    }

    /// Reads the latest session row from the database the settings name; the run's
    /// cancellation (its timeout) ends the read.
    public func make(_ context: ProviderContext) async throws -> Session {
        let database = try context[try context.settings(for: self).database]
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
