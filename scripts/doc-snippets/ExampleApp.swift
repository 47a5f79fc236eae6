// The example app the documentation's snippets are written against: the types an app declares
// itself (its settings, its database, its session, ...), which this package does not define.
// Module DocSnippetExampleApp, imported by every snippet that does not import `Plugins`
// (scripts/check-doc-snippets.sh); those that do use Plugins' real `Database` and `Session`.
// The snippets are built, never run: these types only need the shapes the snippets use.
public import Container

/// The app's settings.
public struct Settings: Sendable {
    public var databasePath = ":memory:"
    public static func load() throws -> Settings { Settings() }
}

/// The app's database.
public final class Database: Sendable {
    public let path: String
    public init(path: String) { self.path = path }
    /// An empty database, for tests.
    public static let inMemory = Database(path: ":memory:")
    public static func open(_ path: String, clock: ContinuousClock = ContinuousClock()) async throws -> Database {
        Database(path: path)
    }
    public func close() async throws {}
}

/// The signed-in user's session.
public struct Session: Sendable {
    public let userID: String?
    public static func restore(from database: Database) async throws -> Session { Session(userID: "ada") }
}

/// What a push notification shows: one item.
public struct ItemDetail: Sendable {
    public let itemID: String
    public static func load(_ itemID: String, from database: Database) async throws -> ItemDetail {
        ItemDetail(itemID: itemID)
    }
}

/// Where analytics events go; the `analytics` group's members make one each.
public protocol AnalyticsSink: Sendable {}

/// An analytics sink that prints.
public struct ConsoleSink: AnalyticsSink {
    public init() {}
}

/// Sends analytics events to every sink.
public struct Tracker: Sendable {
    public let sinks: [any AnalyticsSink]
    public init(sinks: [any AnalyticsSink]) { self.sinks = sinks }
}

extension ServiceKey where Value == Settings { public static let settings = ServiceKey("settings") }
extension ServiceKey where Value == Database { public static let database = ServiceKey("database") }
extension ServiceKey where Value == Session { public static let session = ServiceKey("session") }
extension ServiceKey where Value == ContinuousClock { public static let clock = ServiceKey("clock") }
extension ServiceKey where Value == ItemDetail { public static let pushDetail = ServiceKey("pushDetail") }
extension ServiceKey where Value == any AnalyticsSink { public static let consoleSink = ServiceKey("consoleSink") }
extension ServiceKey where Value == Tracker { public static let tracker = ServiceKey("tracker") }

/// The app's graph as it ships (`settings -> database -> session`), which the testing articles test.
public enum MyApp {
    public static let services: [ServiceSpec] = [
        ServiceSpec(.settings) { _ in Settings() },
        ServiceSpec(.database, dependsOn: ["settings"]) { Database(path: try $0[.settings].databasePath) },
        ServiceSpec(.session, dependsOn: ["database"]) { try await Session.restore(from: $0[.database]) },
    ]
}

/// A search index the app builds on first use (the demand-driven start-up article's lazy service).
public struct SearchIndex: Sendable {
    public init(database: Database) {}
}
extension ServiceKey where Value == SearchIndex { public static let searchIndex = ServiceKey("searchIndex") }

/// An analytics SDK the app can start without (the demand-driven start-up article's optional service).
public struct Telemetry: Sendable {
    public init() async throws {}
    public func record(_ event: String) {}
}
extension ServiceKey where Value == Telemetry { public static let telemetry = ServiceKey("telemetry") }

/// A feed that records to telemetry when it has it.
public struct Feed: Sendable {
    public init(session: Session, telemetry: Telemetry?) {}
}
extension ServiceKey where Value == Feed { public static let feed = ServiceKey("feed") }

/// The device token the app supplies once the system gives it (the demand-driven start-up article's input).
extension ServiceKey where Value == String { public static let deviceToken = ServiceKey("deviceToken") }

/// Push registration, built once the device token is supplied.
public struct PushRegistration: Sendable {
    public init(token: String) {}
}
extension ServiceKey where Value == PushRegistration {
    public static let pushRegistration = ServiceKey("pushRegistration")
}
