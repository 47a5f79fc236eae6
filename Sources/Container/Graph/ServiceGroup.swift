/// A typed name of a group of services (see <doc:TypedDependencies>): services contribute to it with their
/// `group`, and a service that depends on it receives every member's value, in declaration
/// order. The group is complete only when every member succeeded; a failed member skips its
/// dependents like any dependency.
///
/// ```swift
/// extension ServiceGroup where Value == any AnalyticsSink {
///     static let analytics = ServiceGroup("analytics")
/// }
/// ServiceSpec(.consoleSink, group: ServiceGroup.analytics.name) { _ in ConsoleSink() as any AnalyticsSink }
/// ServiceSpec(.tracker, dependsOn: [ServiceGroup.analytics.dependency]) { context in
///     Tracker(sinks: try context.group(.analytics))
/// }
/// ```
///
/// In a config file: `"group": "analytics"` on each member and `"dependsOn": ["group:analytics"]`
/// on the service that uses them (`"group:analytics?"` when the group may be empty).
public struct ServiceGroup<Value: Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The group's name.
    public let name: String

    /// A group called `name` whose members make `Value`s.
    public init(_ name: String) { self.name = name }

    /// The `dependsOn` entry that depends on every member: `group:<name>`.
    public var dependency: String { ServiceGroups.prefix + name }

    /// The `dependsOn` entry that depends on every member and allows none: `group:<name>?`.
    public var optionalDependency: String { ServiceGroups.prefix + name + "?" }

    public var description: String { "group \(name): [\(Value.self)]" }
}

/// How `dependsOn` names a group.
enum ServiceGroups {
    /// `group:` starts a group dependency.
    static let prefix = "group:"

    /// The group named by a `dependsOn` entry, and whether it may be empty; `nil` for a service.
    static func parse(_ dependency: String) -> (name: String, optional: Bool)? {
        guard dependency.hasPrefix(prefix) else { return nil }
        var name = dependency.dropFirst(prefix.count)
        let optional = name.hasSuffix("?")
        if optional { name = name.dropLast() }
        return (String(name), optional)
    }
}
