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
/// cancellation, exactly-once resumption, teardown in reverse order. A failed app build fails
/// the instance's callers with the same failure. A reset of the app that retires a service the
/// instance uses supersedes it: its build is cancelled and never publishes, its values are torn
/// down, and its next ``start(as:)`` builds on the new app generation.
public final class ScopeInstance: Sendable {
    @usableFromInline let storage: CoordinatorStorage
    /// The storage's snapshot slot, held here too so the hot path reaches it in one hop.
    @usableFromInline let published: SnapshotSlot
    let binding: ScopeBinding
    private let registry: ScopeRegistry
    /// Completes once the instance is closed and its values torn down.
    let closed = Completion()

    init(part: ServiceGraph, binding: ScopeBinding, registry: ScopeRegistry) {
        storage = CoordinatorStorage(scopePart: part, binding: binding, parent: binding.parent)
        published = storage.published
        self.binding = binding
        self.registry = registry
    }

    /// The scope's name (`push`).
    public var scope: String { binding.scope }

    /// The instance's id (`notification-42`).
    public var id: String { binding.id }

    /// `push#notification-42`: how the trace and errors name the instance.
    public var label: String { binding.label }

    /// The parameters the instance was opened with.
    public var parameters: ScopeParameters { binding.parameters }

    /// The instance's generation (1 when opened; each supersession by the app adds one).
    public var generation: Int { storage.generation }

    /// The published snapshot of the instance, or `nil` when it is not ready. Synchronous.
    public var current: AppServices? { storage.current }

    /// Reads one service (scoped, or an app service the scope uses) of the published snapshot,
    /// synchronously, without retaining the snapshot.
    /// - Throws: ``ContainerError`` `.notReady`, `.closed` once the instance is closed (or the app
    ///   shut down), or ``ServiceLookupError``.
    @inlinable
    public func resolve<Value>(_ key: ServiceKey<Value>) throws -> Value {
        guard
            let value = try published.withCurrent({ snapshot throws(ServiceLookupError) in try snapshot.resolve(key) })
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
        if published.answersReadyInline, let snapshot = published.load() { return snapshot }
        return try await storage.start(label: label)
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
        let snapshot = try await start(as: entryPoint.id)
        return try await RunningEntryPoint.run(
            entryPoint, with: ScopedServices(snapshot, reader: entryPoint.id, requirements: entryPoint.requirements))
    }

    /// Ends the instance: a running build is cancelled, waiters get `.closed`, values are torn
    /// down in reverse dependency order after the build stopped, later calls are refused.
    /// - Throws: ``ContainerError`` `.closed` when it was closed already.
    @discardableResult
    public func close() async throws(ContainerError) -> ResetReport {
        let report = try await storage.shutdown(deadline: nil, error: .closed(label))
        registry.remove(label)
        closed.complete()
        return report
    }
}

extension ScopeInstance: CustomStringConvertible {
    public var description: String { "ScopeInstance(\(label), generation: \(generation))" }
}
