/// What ``ServiceContainer/reload(_:)`` did (see <doc:Reload>).
public struct ReloadReport: Sendable {
    /// The generation retired and the one the reload started.
    public let from: Int
    /// See ``from``.
    public let to: Int
    /// What the new graph changes: added, removed, changed, rebuilt and carried-over services.
    public let changes: GraphChanges
    /// The teardowns of the removed and replaced values (and of a build the reload cancelled),
    /// in the order they ran.
    public let tornDown: [ResetReport.Teardown]
    /// The build the reload cancelled, if one was running.
    public let cancelledBuild: BuildAttempt?
    /// Open scope instances rebuilt on the new graph (their scope's services changed).
    public let reloadedScopes: [String]
    /// Open scope instances closed because the new graph no longer declares their scope.
    public let closedScopes: [String]

    /// Services the new graph adds.
    public var added: [String] { changes.added }
    /// Services the new graph removes.
    public var removed: [String] { changes.removed }
    /// Services whose declaration changed.
    public var changed: [String] { changes.changed }
    /// Services built again in the new generation.
    public var rebuilt: [String] { changes.rebuilt }
    /// Services whose values carried over unchanged (not rebuilt, not torn down).
    public var carriedOver: [String] { changes.carriedOver }
    /// Teardowns that failed.
    public var failures: [ResetReport.Teardown] { tornDown.filter { $0.error != nil } }
}
