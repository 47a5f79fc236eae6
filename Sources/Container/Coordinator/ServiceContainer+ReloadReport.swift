extension ServiceContainer {
    /// What ``ServiceContainer/reload(_:)`` did (see <doc:Reload>).
    public struct ReloadReport: Sendable {
        /// The generation retired and the one the reload started.
        public let from: Int
        /// See ``from``.
        public let to: Int
        /// What the new graph changes: added, removed, changed, rebuilt and carried-over services.
        public let changes: ServiceGraph.Changes
        /// The teardowns of the removed and replaced values (and of a build the reload cancelled),
        /// in the order they ran.
        public let tornDown: [ResetReport.Teardown]
        /// The build the reload cancelled, if one was running.
        public let cancelledBuild: BuildAttempt?
        /// Open scope instances, opened from the container, rebuilt on the new graph (their
        /// scope's services changed); the instances nested in them follow. An instance closing
        /// on its own when the reload came refuses its rebuild: it is not listed.
        public let reloadedScopes: [String]
        /// Open scope instances closed because the new graph no longer declares their scope.
        public let closedScopes: [String]

        /// Services the new graph adds.
        public var added: [String] { changes.added }
        /// Services the new graph removes.
        public var removed: [String] { changes.removed }
        /// Services whose declaration changed.
        public var changed: [String] { changes.changed }
        /// Services the new generation builds again, when asked for: the added and changed ones
        /// and their dependents.
        public var rebuilt: [String] { changes.rebuilt }
        /// Services whose values carried over unchanged (not rebuilt, not torn down). A service
        /// that held no value (never asked for, or retired by a failure) is not among them.
        public var carriedOver: [String] { carried.names }
        /// See ``carriedOver``: slots of the new graph's names, made into names when read.
        let carried: SlotNames
        /// Teardowns that failed.
        public var failures: [ResetReport.Teardown] { tornDown.filter { $0.error != nil } }
    }
}

extension ServiceContainer.ReloadReport: CustomStringConvertible, CustomDebugStringConvertible {
    /// What the reload did, for a person: the generations, the services added, removed and
    /// changed, what was built again and what carried over, what was torn down and which
    /// teardowns failed, the scope instances rebuilt or closed, and the build it cancelled.
    ///
    /// ```text
    /// reload: generation 1 → 2
    ///   added: remoteConfig
    ///   removed: cache
    ///   changed: session
    ///   rebuilt (changed, added and their dependents): session, remoteConfig, feed
    ///   carried over (the same values, not rebuilt, not torn down): configuration, database
    ///   torn down, in order: feed (g1), session (g1), cache (g1)
    /// ```
    ///
    /// Empty lists of added, removed and changed services are left out (`no service changed`
    /// when all three are); long lists name their first 20 services and count the others.
    public var description: String {
        var lines = ["reload: generation \(from) → \(to)"]
        if added.isEmpty && removed.isEmpty && changed.isEmpty {
            lines.append("  no service changed")
        }
        if !added.isEmpty { lines.append("  added: \(ReportText.list(added))") }
        if !removed.isEmpty { lines.append("  removed: \(ReportText.list(removed))") }
        if !changed.isEmpty { lines.append("  changed: \(ReportText.list(changed))") }
        lines.append("  rebuilt (changed, added and their dependents): \(ReportText.list(rebuilt))")
        lines.append("  carried over (the same values, not rebuilt, not torn down): \(ReportText.list(carriedOver))")
        lines += ReportText.teardownLines(tornDown, failures: failures)
        if !reloadedScopes.isEmpty { lines.append("  scope instances rebuilt: \(ReportText.list(reloadedScopes))") }
        if !closedScopes.isEmpty { lines.append("  scope instances closed: \(ReportText.list(closedScopes))") }
        if let cancelledBuild { lines.append("  cancelled build: \(cancelledBuild)") }
        return lines.joined(separator: "\n")
    }

    /// The report on one line, for logs and collections:
    /// `ReloadReport(generation 1 → 2, added: [remoteConfig], removed: [cache], changed: [session],
    /// rebuilt: [session, remoteConfig], carried over: [configuration], torn down: [cache (g1)])`.
    public var debugDescription: String {
        var fields = [
            "generation \(from) → \(to)", "added: [\(ReportText.list(added, none: ""))]",
            "removed: [\(ReportText.list(removed, none: ""))]", "changed: [\(ReportText.list(changed, none: ""))]",
            "rebuilt: [\(ReportText.list(rebuilt, none: ""))]",
            "carried over: [\(ReportText.list(carriedOver, none: ""))]",
            "torn down: [\(ReportText.list(tornDown.map(\.description), none: ""))]",
        ]
        if !reloadedScopes.isEmpty { fields.append("scope instances rebuilt: [\(ReportText.list(reloadedScopes))]") }
        if !closedScopes.isEmpty { fields.append("scope instances closed: [\(ReportText.list(closedScopes))]") }
        if let cancelledBuild { fields.append("cancelled build: \(cancelledBuild)") }
        return "ReloadReport(" + fields.joined(separator: ", ") + ")"
    }
}
