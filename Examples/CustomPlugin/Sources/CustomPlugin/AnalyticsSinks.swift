import Container
import Synchronization

/// Where analytics events go. Two plugins contribute one each to the `analytics` group.
protocol AnalyticsSink: Sendable {
    var name: String { get }
    func record(_ event: String)
}

extension ServiceGroup where Value == any AnalyticsSink {
    /// Every service with `"group": "analytics"`, in declaration order.
    static let analytics = ServiceGroup("analytics")
}

/// Prints events: contributed by the `consoleSink` provider.
struct ConsoleSink: AnalyticsSink {
    let name = "console"
    func record(_ event: String) { print("  [analytics] \(event)") }
}

/// Keeps events in memory: contributed by the `memorySink` provider.
final class MemorySink: AnalyticsSink {
    let name = "memory"
    private let events = Mutex<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var recorded: [String] { events.withLock { $0 } }
}

/// A provider plugin contributing a ``ConsoleSink`` to whatever group its service names.
struct ConsoleSinkProvider: ServiceProvider {
    let id = "consoleSink"
    func make(_ context: ProviderContext) async throws -> any AnalyticsSink { ConsoleSink() }
}

/// Another provider plugin contributing a ``MemorySink``.
struct MemorySinkProvider: ServiceProvider {
    let id = "memorySink"
    func make(_ context: ProviderContext) async throws -> any AnalyticsSink { MemorySink() }
}

/// Sends each event to every sink of the `analytics` group.
struct Tracker: Sendable {
    let sinks: [any AnalyticsSink]
    func track(_ event: String) { for sink in sinks { sink.record(event) } }
}

extension ServiceKey where Value == Tracker {
    /// The `tracker` service.
    static let tracker = ServiceKey("tracker")
}

/// Makes the ``Tracker`` from every member of the `analytics` group (its service depends on
/// `"group:analytics"`); the group is complete only when every sink succeeded.
struct TrackerProvider: ServiceProvider {
    let id = "tracker"
    func make(_ context: ProviderContext) async throws -> Tracker { Tracker(sinks: try context.group(.analytics)) }
}
