public import Container

/// The `launch` entry point: the app's cold start. Reads the configuration, records the
/// launch in the database and greets the restored session.
///
/// Requires `configuration`, `database` and `session`.
public struct LaunchEntryPoint: EntryPoint {
    /// `launch`.
    public let id = "launch"

    /// The services `launch` reads.
    public static let requirements: [AnyServiceKey] = [
        ServiceKey.configuration.erased, ServiceKey.database.erased, ServiceKey.session.erased,
    ]

    /// Creates the entry point.
    public init() {}

    /// ``requirements``.
    public var requirements: [AnyServiceKey] { Self.requirements }

    /// Records the launch; returns e.g. `launch: Demo (development), schema v3, launch #1, signed in as ada`.
    public func run(_ services: ScopedServices) async throws -> String {
        let configuration = try services[.configuration]
        let database = try services[.database]
        let session = try services[.session]
        try database.execute("INSERT INTO launches (entry_point) VALUES (?)", [.text(id)])
        let launches = try database.query("SELECT COUNT(*) AS count FROM launches").first?["count"]?.int ?? 0
        return "launch: \(configuration.appName) (\(configuration.environment)), "
            + "schema v\(try database.schemaVersion()), launch #\(launches), \(session)"
    }
}
