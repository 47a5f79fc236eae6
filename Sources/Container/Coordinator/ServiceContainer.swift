/// The container: builds a ``ServiceGraph`` once per generation, shared by every caller,
/// and publishes an immutable ``AppServices`` snapshot when the whole graph succeeded.
///
/// ```swift
/// let container = ServiceContainer(graph: graph)
/// let services = try await container.start()    // every concurrent caller joins one build
/// let db = try services[.database]
/// let same = container.current                    // synchronous, no await, once ready
/// ```
///
/// - ``start(as:)`` builds (or joins the build of) the current generation. After a transient
///   failure the next call starts a new attempt that reuses what already succeeded; a
///   permanent failure is sticky until ``reset(invalidating:)``.
/// - ``reset(invalidating:)`` starts a new generation (e.g. on logout): the old build is
///   cancelled and can never publish, and retired values are torn down before anything new is built.
/// - ``shutdown()`` tears everything down; later calls fail with `.shutDown`.
///
/// Every transition is reported to the trace sinks given at creation (see ``TraceEvent``).
public final class ServiceContainer: Sendable {
    @usableFromInline let core: CoordinatorCore
    /// The core's snapshot slot, held here too so the hot path reaches it in one hop.
    @usableFromInline let published: SnapshotSlot
    /// Reloads, one at a time (see ``reload(_:)``).
    let reloads = OneAtATime()

    /// Creates a container for a validated graph. Nothing is built until ``start(as:)``.
    ///
    /// - Parameters:
    ///   - graph: the services.
    ///   - policy: fail-fast or not, and the default error classifier.
    ///   - trace: sinks that receive every trace event.
    public convenience init(graph: ServiceGraph, policy: BuildPolicy = .default, trace: [any TraceSink] = []) {
        self.init(graph: graph, policy: policy, tuning: .default, trace: trace)
    }

    /// Creates a container with a scheduler tuning other than the default (the benchmark's).
    package init(
        graph: ServiceGraph, policy: BuildPolicy = .default, tuning: SchedulerTuning, trace: [any TraceSink] = []
    ) {
        core = CoordinatorCore(
            declared: graph, policy: policy, tuning: tuning, tracer: Tracer(sinks: trace, overridden: graph.overridden))
        published = core.published
    }

    /// Validates `specs` and creates a container for them.
    /// - Throws: ``GraphError`` listing every problem of the graph.
    public convenience init(
        _ specs: [ServiceSpec], registry: ProviderRegistry = ProviderRegistry(), policy: BuildPolicy = .default,
        trace: [any TraceSink] = []
    ) throws(GraphError) {
        self.init(graph: try ServiceGraph(specs, registry: registry), policy: policy, trace: trace)
    }

    /// The graph this container builds.
    public var graph: ServiceGraph { core.declared }

    /// The current generation (1 for a new container; each reset adds one).
    public var generation: Int { core.generation }

    /// The published snapshot of the current generation, or `nil` when it is not ready.
    ///
    /// Synchronous and cheap: read it on hot paths instead of awaiting ``start(as:)``.
    public var current: AppServices? { core.current }

    /// Reads one service of the published snapshot, synchronously: the hot path.
    ///
    /// The same as `try container.current?[key]` but without retaining the snapshot, so
    /// concurrent readers touch only the value they read:
    ///
    /// ```swift
    /// let db = try container.resolve(.database)   // no await, no lock
    /// ```
    ///
    /// - Throws: ``ContainerError`` `.notReady` when no snapshot is published (call ``start(as:)``
    ///   first), `.shutDown` once the container shuts down, or ``AppServices/LookupError`` when the
    ///   snapshot has no such service of that type.
    @inlinable
    public func resolve<Value>(_ key: ServiceKey<Value>) throws -> Value {
        // The snapshot is used without retaining it; only the returned value is retained.
        guard
            let value = try published.withCurrent({ snapshot throws(AppServices.LookupError) in
                try snapshot.resolve(key)
            })
        else { throw unpublished() }
        return value
    }

    /// Why ``resolve(_:)`` found nothing published: not ready yet, or shut down. Off the hot path.
    @usableFromInline
    func unpublished() -> ContainerError {
        let generation = published.generation
        return published.isShutDown ? .shutDown(generation: generation) : .notReady(generation: generation)
    }

    /// Returns the current generation's snapshot, building it if needed.
    ///
    /// Concurrent callers share one build; every caller of the same attempt receives the same
    /// snapshot (`===`) or the same failure. A caller cancelled while it waits stops waiting at
    /// once with `CancellationError`; the build goes on for the others. A caller already
    /// cancelled when it calls gets the snapshot or the sticky failure when there is one,
    /// otherwise `CancellationError`, and never starts or joins a build.
    ///
    /// - Parameter label: the caller's name in the trace (e.g. an entry point's id).
    /// - Throws: ``ContainerError`` (`.buildFailed`, `.superseded`, `.shutDown`) or `CancellationError`.
    @inlinable
    public func start(as label: String? = nil) async throws -> AppServices {
        // Ready (the common case): answered inline in the caller, without an async call.
        if published.answersReadyInline, !published.isShutDown, let snapshot = published.load(), snapshot.holdsEager {
            return snapshot
        }
        return try await core.start(label: label)
    }

    /// Runs `entryPoint` with a view of the snapshot that holds only the services it declared.
    ///
    /// The entry point does not assume anything is ready: this builds what its requirements'
    /// dependency closure lacks, joining the build in flight if there is one, and never waits
    /// for services it does not need. In a graph that declares no start policy (every service
    /// eager), or for an entry point that declares nothing, it waits for ``start(as:)``. Its
    /// requirements are checked against the graph first, so its `@Needs` properties always hold
    /// a value: a service the graph lacks, or of another type, is a ``GraphError`` before the
    /// entry point runs (validate the graph with `requirements:` to see it sooner).
    /// - Throws: ``GraphError``, what ``start(as:)`` throws, or what the entry point throws.
    public func run<Entry: EntryPoint>(_ entryPoint: Entry) async throws -> Entry.Output {
        if let scope = entryPoint.scope {
            throw ContainerError.invalidScope(
                "entry point '\(entryPoint.id)' runs in scope '\(scope)': run it with run(_:in:) in an open instance, "
                    + "or run(_:scopeID:parameters:)")
        }
        let requirements = entryPoint.requirements
        try graph.check(ServiceGraph.Requirement(reader: "entry point '\(entryPoint.id)'", keys: requirements))
        let byClosure = !requirements.isEmpty && core.declared.declaresStartPolicies
        let snapshot =
            byClosure
            ? try await core.start(.names(requirements.map(\.name)), label: entryPoint.id)
            : try await start(as: entryPoint.id)
        return try await RunningEntryPoint.run(
            entryPoint, with: ScopedServices(snapshot, reader: entryPoint.id, requirements: requirements))
    }

    /// Starts a new generation.
    ///
    /// The running build, if any, is cancelled and can never publish; its waiters get
    /// `.superseded`. The retired values are torn down in reverse dependency order, and
    /// this returns once that is done. The next ``start(as:)`` builds the new generation.
    /// Callers holding an older snapshot keep it.
    ///
    /// - Parameter names: rebuild only these services and their dependents; the others carry
    ///   over to the new generation unchanged (not rebuilt, not torn down). `nil` rebuilds everything.
    /// - Throws: ``ContainerError`` `.unknownService` for a name the graph lacks (nothing is reset),
    ///   or `.shutDown`.
    @discardableResult
    public func reset(invalidating names: [String]? = nil) async throws(ContainerError) -> ResetReport {
        try await core.reset(invalidating: names)
    }

    /// Cancels any build, tears every value down, and refuses later calls with `.shutDown`.
    /// - Throws: ``ContainerError`` `.shutDown` when already shut down (a call made while a
    ///   graceful shutdown drains returns once that shutdown's `container.shutdown` is traced).
    @discardableResult
    public func shutdown() async throws(ContainerError) -> ResetReport {
        try await core.shutdown(deadline: nil, error: .shutDown(generation: core.generation))
    }

    /// One transition of the state machine that changes nothing: its fixed cost, for the benchmark.
    package func _emptyTransition() -> Int { core.transition { machine, _ in machine.generation } }
}
