public import Container

/// The app's settings (read once at launch).
public struct Settings: Sendable {
    public let apiHost: String
    public init(apiHost: String) { self.apiHost = apiHost }
}

/// Talks to the news API.
public struct APIClient: Sendable {
    public let host: String
    public init(host: String) { self.host = host }
    /// The headline of an item (a stand-in for a network call).
    public func headline(of item: String) async throws -> String { "\(item) from \(host)" }
}

/// One analytics backend; the app has two, read together as the `trackers` group.
public struct Tracker: Sendable {
    public let name: String
}

/// Sends each event to every tracker.
public struct Analytics: Sendable {
    public let trackers: [Tracker]
    public func track(_ event: String) -> String {
        "\(event) → \(trackers.map(\.name).joined(separator: ", "))"
    }
}

/// What one push notification shows: built per push, in the `push` scope.
public struct PushDetail: Sendable {
    public let text: String
}

extension ServiceKey where Value == Settings { public static let settings = Self("settings") }
extension ServiceKey where Value == APIClient { public static let api = Self("api") }
extension ServiceKey where Value == Tracker {
    public static let consoleTracker = Self("consoleTracker")
    public static let metricsTracker = Self("metricsTracker")
}
extension ServiceKey where Value == Analytics { public static let analytics = Self("analytics") }
extension ServiceKey where Value == PushDetail { public static let pushDetail = Self("pushDetail") }
extension ServiceGroup where Value == Tracker { public static let trackers = Self("trackers") }
extension ScopeParameters.Key where Value == String { public static let itemID = Self("itemID") }

/// The app's graph, declared in code: two trackers in a group, an analytics service that reads the
/// group, and a `push` scope whose detail is built per notification from its `itemID` parameter.
/// No `requirements:`: the entry points' needs are checked when they run.
public func makeGraph(apiHost: String = "news.example") throws -> ServiceGraph {
    try ServiceGraph(
        [
            ServiceSpec(.settings) { _ in Settings(apiHost: apiHost) },
            ServiceSpec(.api, dependsOn: .settings) { context in APIClient(host: try context[.settings].apiHost) },
            ServiceSpec(.consoleTracker, group: ServiceGroup.trackers.name) { _ in Tracker(name: "console") },
            ServiceSpec(.metricsTracker, group: ServiceGroup.trackers.name) { _ in Tracker(name: "metrics") },
            ServiceSpec(.analytics, dependsOn: [ServiceGroup.trackers.dependency]) { context in
                Analytics(trackers: try context.group(.trackers))
            },
            ServiceSpec(.pushDetail, dependsOn: .api, lifetime: .scope("push")) { context in
                let item = try context.parameter(.itemID)
                return PushDetail(text: try await context[.api].headline(of: item))
            },
        ], scopes: ["push"])
}
