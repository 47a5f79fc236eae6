/// One instance of a scope (see <doc:Scopes>): the services of a window, a screen or one push
/// notification, built on top of the app's services, with the parameters it was opened with.
///
/// ```swift
/// let push = try container.openScope("push", id: "notification-42", parameters: [.set(.itemID, to: "A-17")])
/// let detail = try await push.start()[.pushDetail]   // joins (or starts) the app build first
/// try await push.close()                             // tears its values down
/// ```
///
/// Inside an instance every rule of the app holds: one shared build per attempt, a snapshot
/// only when every scoped service succeeded (it also holds the app services they use, from the
/// app generation it was built against), per-node outcomes, transient and permanent failures,
/// cancellation, exactly-once resumption, teardown in reverse order. An app service the app
/// failed to build fails the instance's callers that need it with the same failure. A reset of the app that retires a service the
/// instance uses supersedes it: its build is cancelled and never publishes, its values are torn
/// down, and its next ``start(as:)`` builds on the new app generation.
public final class ScopeInstance: Sendable {
    @usableFromInline let core: CoordinatorCore
    /// The core's snapshot slot, held here too so the hot path reaches it in one hop.
    @usableFromInline let published: SnapshotSlot
    /// What ties the instance to the app.
    let link: CoordinatorCore.Link

    init(core: CoordinatorCore) {
        guard let link = core.link else { preconditionFailure("a scope instance's core has a link") }
        self.core = core
        self.link = link
        published = core.published
    }

    /// The scope's name (`push`).
    public var scope: String { link.scope }

    /// The instance's id (`notification-42`).
    public var id: String { link.id }

    /// `push#notification-42`: how the trace and errors name the instance.
    public var label: String { link.label }

    /// The parameters the instance was opened with.
    public var parameters: ScopeParameters { link.parameters }

    /// The instance's generation (1 when opened; each supersession by the app adds one).
    public var generation: Int { core.generation }

    /// The published snapshot of the instance, or `nil` when it is not ready. Synchronous.
    public var current: AppServices? { core.current }

    /// Reads one service (scoped, or an app service the scope uses) of the published snapshot,
    /// synchronously, without retaining the snapshot.
    /// - Throws: ``ContainerError`` `.notReady`, `.closed` once the instance is closed (or the app
    ///   shut down), or ``AppServices/LookupError``.
    @inlinable
    public func resolve<Value>(_ key: ServiceKey<Value>) throws -> Value {
        guard
            let value = try published.withCurrent({ snapshot throws(AppServices.LookupError) in
                try snapshot.resolve(key)
            })
        else { throw unpublished() }
        return value
    }

    /// Why ``resolve(_:)`` found nothing published: not ready yet, or closed. Off the hot path.
    @usableFromInline
    func unpublished() -> ContainerError {
        published.isShutDown ? .closed(label) : .notReady(generation: published.generation)
    }

    /// The instance's snapshot, building it if needed (first joining or starting the app's build).
    ///
    /// Cancellation follows ``ServiceContainer/start(as:)``: a caller cancelled while it waits
    /// stops waiting; one already cancelled gets the snapshot or the sticky failure when there is
    /// one, otherwise `CancellationError`.
    ///
    /// - Parameter label: the caller's name in the trace.
    /// - Throws: ``ContainerError`` (the app's failure, `.buildFailed`, `.superseded`, `.closed`)
    ///   or `CancellationError`.
    @inlinable
    public func start(as label: String? = nil) async throws -> AppServices {
        // Not once a coordinator up the chain began to shut down (the core refuses the caller).
        if published.answersReadyInline, !published.isShutDown, !core.isClosingAbove,
            let snapshot = published.load(), snapshot.holdsEager
        {
            return snapshot
        }
        return try await core.start(label: label)
    }

    /// Runs `entryPoint` (which must declare this scope) with a view of the instance's snapshot
    /// holding only the services it declared.
    /// - Throws: ``ContainerError`` `.invalidScope` when the entry point runs in another scope, or
    ///   what ``start(as:)`` or the entry point throws.
    public func run<Entry: EntryPoint>(_ entryPoint: Entry) async throws -> Entry.Output {
        guard entryPoint.scope == scope else {
            throw ContainerError.invalidScope(
                "entry point '\(entryPoint.id)' "
                    + (entryPoint.scope.map { "runs in scope '\($0)'" } ?? "runs on the app snapshot")
                    + ", not in scope '\(scope)'; run it in an instance of its own scope")
        }
        let requirements = entryPoint.requirements
        try link.root.declared.check(
            ServiceGraph.Requirement(reader: "entry point '\(entryPoint.id)'", keys: requirements, scope: scope))
        let services = try await services(for: entryPoint.id, requirements: requirements)
        return try await RunningEntryPoint.run(entryPoint, with: services)
    }

    /// How many times ``services(for:requirements:)`` takes a new pair of snapshots when a
    /// reset of the app comes between the two it took.
    static let consistentViewAttempts = 8

    /// The view an entry point reads: the instance's snapshot and, for the services it requires
    /// that the scope's services do not use (a graph declared in code without the entry point
    /// among its `requirements`), the snapshots up the chain that hold them (a parent
    /// instance's, the app's), each with the same values of every service the instance was
    /// built on, so the view is of one generation of each.
    func services(for reader: String, requirements: [AnyServiceKey]) async throws -> ScopedServices {
        // Without start policies (or requirements) an entry point waits for the eager services.
        let byClosure = !requirements.isEmpty && link.root.declared.declaresStartPolicies
        let needs: CoordinatorCore.Machine.Demands.Key = byClosure ? .names(requirements.map(\.name)) : .eager
        var snapshot = try await core.start(needs, label: reader)
        let missing = requirements.filter { !snapshot.contains($0.name) }.map(\.name)
        guard !missing.isEmpty else { return ScopedServices(snapshot, reader: reader, requirements: requirements) }
        for _ in 0..<Self.consistentViewAttempts {
            let above = try await snapshotsAbove(holding: missing, byClosure: byClosure)
            // A nested instance's generation counts its parent's, not the app's: compare values.
            if above.allSatisfy({ snapshot.isBuilt(on: $0.snapshot, comparingGenerations: $0.isAppAsParent) }) {
                return ScopedServices(
                    snapshot, reader: reader, requirements: requirements, above: above.map(\.snapshot))
            }
            // A reset above retired a service the instance uses: it was superseded, and its
            // next snapshot is built on the new generation.
            snapshot = try await core.start(needs, label: reader)
        }
        throw ContainerError.superseded(
            generation: snapshot.appGeneration ?? 0, by: link.root.generation,
            detail: "the app was reset \(Self.consistentViewAttempts) times while entry point '\(reader)' of scope "
                + "instance '\(label)' was starting")
    }

    /// The snapshots up the chain that answer for `names`, nearest first: each coordinator above
    /// (a parent instance, then the app) is asked for those of them its graph has and the ones
    /// below did not hold.
    private func snapshotsAbove(
        holding names: [String], byClosure: Bool
    ) async throws -> [(snapshot: AppServices, isAppAsParent: Bool)] {
        var result: [(snapshot: AppServices, isAppAsParent: Bool)] = []
        var remaining = names
        var next: CoordinatorCore? = link.parent
        while let above = next, !remaining.isEmpty {
            let graph = above.graph
            let known = remaining.filter { graph.layout.slots[$0] != nil }
            if !known.isEmpty {
                let services = try await above.start(byClosure ? .names(known) : .eager, label: label)
                // Only a top-level instance counts the app's generations as its own app generation.
                result.append((services, above.link == nil && above === link.parent))
                remaining.removeAll { services.contains($0) }
            }
            next = above.link?.parent
        }
        return result
    }

    /// Ends the instance: a running build is cancelled, waiters get `.closed`, values are torn
    /// down in reverse dependency order after the build stopped, later calls are refused.
    /// - Throws: ``ContainerError`` `.closed` when it was closed already.
    @discardableResult
    public func close() async throws(ContainerError) -> ServiceContainer.ResetReport {
        try await core.shutdown(deadline: nil, error: .closed(label))
    }
}

extension ScopeInstance: CustomStringConvertible {
    public var description: String { "ScopeInstance(\(label), generation: \(generation))" }
}
