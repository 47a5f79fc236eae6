public import Container
import Plugins

/// The demo's `launch` entry point: the app's cold start. Reads the configuration, records the
/// launch in the database's `launches` table (``DemoSchema``) and greets the restored session.
///
/// Requires `configuration`, `database` and `session`.
public struct LaunchEntryPoint: EntryPoint {
    /// `launch`.
    public let id = "launch"

    @Needs(.configuration) var configuration: AppConfiguration
    @Needs(.database) var database: Database
    @Needs(.session) var session: Session

    /// Creates the entry point.
    public init() {}

    /// Records the launch; returns e.g. `launch: Demo (development), schema v3, launch #1, signed in as ada`.
    public func run(_ services: ScopedServices) async throws -> String {
        try database.execute("INSERT INTO launches (entry_point) VALUES (?)", [.text(id)])
        let launches = try database.query("SELECT COUNT(*) AS count FROM launches").first?["count"]?.int ?? 0
        return "launch: \(configuration.appName) (\(configuration.environment)), "
            + "schema v\(try database.schemaVersion()), launch #\(launches), \(session)"
    }
}
