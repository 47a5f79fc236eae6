extension ServiceContainer {
    /// Replaces the graph with a new version of it (see <doc:Reload>) and moves to a new generation
    /// that rebuilds exactly what changed: the added services, the changed ones (provider,
    /// options, dependencies, lifetime, optionality, timeout, retry or failure) and everything depending on
    /// them. The removed and replaced values are torn down (dependents first); every other
    /// value carries over, the same instance, its provider not called again. A running build
    /// is cancelled and never publishes; like ``reset(invalidating:)``, the next ``start(as:)``
    /// builds the new generation. Open scope instances whose scope changed are rebuilt on the
    /// new graph; those of a scope it no longer declares are closed.
    ///
    /// An invalid new config never gets here: ``ServiceGraph`` validation (or the config loader)
    /// throws first, and the container goes on unchanged. The policy is kept.
    ///
    /// - Returns: what was added, removed, changed, rebuilt, carried over and torn down.
    /// Reloads run one at a time, in the order they were called.
    ///
    /// - Throws: ``ContainerError`` `.shutDown` (then nothing changed, ``graph`` included).
    @discardableResult
    public func reload(_ graph: ServiceGraph) async throws(ContainerError) -> ReloadReport {
        // One at a time: each reload computes its changes from the graph the previous one
        // adopted, and the app moves to the graphs in the order they were declared.
        try await reloads.run { () async throws(ContainerError) -> ReloadReport in
            // Shut down: refused before anything changes.
            if let refusal = core.refusal { throw refusal }
            let previous = core.declared
            let changes = graph.changes(from: previous)
            for secret in graph.secrets { core.redactor.register(secret) }
            let (report, reloaded, closed) = try await core.reload(graph, changes: changes, from: previous)
            return ReloadReport(
                from: report.from, to: report.to, changes: changes, tornDown: report.tornDown,
                cancelledBuild: report.cancelledBuild, reloadedScopes: reloaded, closedScopes: closed,
                carried: report.carried)
        }
    }

    /// Shuts down gracefully (see <doc:ShutdownAndStatus>): new callers are refused at once, a running build may
    /// finish until `deadline` (its callers then get its outcome) and is cancelled after it;
    /// then every scope instance is closed and every value torn down, dependents first.
    ///
    /// ```swift
    /// try await container.shutdown(deadline: .now + .seconds(2))
    /// ```
    ///
    /// - Returns: the teardowns (with their errors) and the build cancelled at the deadline, if any.
    /// - Throws: ``ContainerError`` `.shutDown` when already shut down (a call made while a
    ///   graceful shutdown drains returns once that shutdown's `container.shutdown` is traced).
    @discardableResult
    public func shutdown(deadline: ContinuousClock.Instant) async throws(ContainerError) -> ResetReport {
        try await core.shutdown(deadline: deadline, error: .shutDown(generation: generation))
    }

    /// What a health endpoint would show: the state, generation and attempt, the last build's
    /// per-node outcomes, the last failure, when the next attempt is allowed, the open scope
    /// instances, and teardowns no reset has reported yet.
    public var status: ContainerStatus { core.status }
}
