/// The priority a service's provider runs at: one of the four levels of `TaskPriority`.
///
/// A node runs at its declared priority (a deferred service's default is ``background``),
/// raised to the highest priority of the requests waiting for it: a caller never waits for a
/// node of a lower priority than its own. A node nothing declares and nobody waits for runs at
/// its build's priority. Declared in code (``ServiceSpec/priority``) or in a config file
/// (`"priority": "background"`); the trace's `node.started` shows the priority each node ran at
/// (see <doc:LaunchTiers>).
public struct ServicePriority: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The `TaskPriority.rawValue` of the level.
    public let rawValue: UInt8

    private init(_ rawValue: UInt8) { self.rawValue = rawValue }

    /// `TaskPriority.high` (also `userInitiated`): what the user waits for.
    public static let high = ServicePriority(TaskPriority.high.rawValue)
    /// `TaskPriority.medium`.
    public static let medium = ServicePriority(TaskPriority.medium.rawValue)
    /// `TaskPriority.low` (also `utility`).
    public static let low = ServicePriority(TaskPriority.low.rawValue)
    /// `TaskPriority.background`: the default of a deferred service.
    public static let background = ServicePriority(TaskPriority.background.rawValue)

    /// Every level, highest first.
    public static let all: [ServicePriority] = [.high, .medium, .low, .background]

    /// The level `priority` is in: the highest level not above it (`userInteractive` is
    /// ``high``; anything below ``background`` is ``background``).
    public init(_ priority: TaskPriority) { self.init(rawValue: priority.rawValue) }

    /// The level of a `TaskPriority.rawValue` (see ``init(_:)``).
    init(rawValue: UInt8) {
        self = Self.all.first { $0.rawValue <= rawValue } ?? .background
    }

    /// The level a config file names (`"high"`, `"medium"`, `"low"`, `"background"`), if any.
    public init?(name: String) {
        guard let level = Self.all.first(where: { $0.description == name }) else { return nil }
        self = level
    }

    /// The task priority of the level.
    public var taskPriority: TaskPriority { TaskPriority(rawValue: rawValue) }

    /// `high`, `medium`, `low` or `background`.
    public var description: String {
        switch rawValue {
        case Self.high.rawValue: "high"
        case Self.medium.rawValue: "medium"
        case Self.low.rawValue: "low"
        default: "background"
        }
    }

    public static func < (lhs: ServicePriority, rhs: ServicePriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
