import Synchronization

/// One coordinator, the app's or a scope instance's: owns the state machine's lock and carries
/// out its actions after unlocking (resumes continuations, starts the build's tasks, cancels and
/// raises them, runs teardowns, tells scope instances what an operation asks of them, emits
/// events). ``ServiceContainer`` and ``ScopeInstance`` are facades over one each.
///
/// A scope instance's core has a ``link`` to the core it was opened on: its builds fetch (and
/// lease) the app values they use from there, and it tells that core when it no longer uses
/// them and when it ended.
@usableFromInline
final class CoordinatorCore: NodeReporter {
    typealias Waiter = CallerWaiter
    /// Told the result of a reset, reload or shutdown; called exactly once.
    typealias OperationWaiter = @Sendable (Result<ServiceContainer.ResetReport, ContainerError>) -> Void
    typealias Machine = CoordinatorStateMachine<Waiter, OperationWaiter, CoordinatorCore>

    let link: Link?
    /// What the app's coordinator and its scope instances share (one object, not a copy each).
    let settings: CoordinatorSettings
    let tracer: Tracer
    /// The values supplied for input services (a scope instance's is its app's).
    var inputs: InputStore { settings.inputs }
    var redactor: Redactor { settings.redactor }
    var policy: BuildPolicy { settings.policy }
    var tuning: SchedulerTuning { settings.tuning }
    private let machine: Locked<Machine>
    /// The published snapshot and generation, for the synchronous hot path: lock-free reads
    /// (see `SnapshotSlot`); changed only under `machine`'s lock, in the same order as the state.
    @usableFromInline let published: SnapshotSlot
    /// Caller ids, given before a caller suspends (so its cancellation can name it).
    let callerIDs = Atomic<Int>(0)
    /// The feeds of the observers, made by the first one (``feeds``): most scope instances are
    /// never observed.
    private let observers = LazyReference<Feeds>()

    /// The app's coordinator, over the app part of `declared`.
    init(declared: ServiceGraph, policy: BuildPolicy, tuning: SchedulerTuning, tracer: Tracer) {
        self.link = nil
        self.tracer = tracer
        // Every secret of the graph, scoped services' too: scope instances share this redactor.
        let settings = CoordinatorSettings(
            policy: policy, tuning: tuning, redactor: Redactor(combining: [declared.redactor]), inputs: InputStore(),
            appGraph: declared.appPart)
        self.settings = settings
        machine = Locked(
            Machine(
                declared: declared,
                tickets: TicketFactory(
                    settings: settings, tracer: tracer, scopeInstance: nil, parameters: ScopeParameters())))
        published = SnapshotSlot(answersReadyInline: !tracer.isEnabled)
    }

    /// A scope instance's coordinator, over its scope's `part`, opened on `parent`.
    init(part: ServiceGraph, runTimes: NodeRunTimes, link: Link) {
        self.link = link
        settings = link.parent.settings
        tracer = link.parent.tracer.scoped(link.label)
        machine = Locked(
            Machine(
                declared: part,
                tickets: TicketFactory(
                    settings: settings, tracer: tracer, scopeInstance: link.label, parameters: link.parameters),
                runTimes: runTimes))
        published = SnapshotSlot(answersReadyInline: !tracer.isEnabled, shards: 1)
    }

    /// The scope instance's label in the trace (`nil` for the app).
    var label: String? { link?.label }

    /// The whole declared graph (the app's with its scopes; a scope instance's part).
    var declared: ServiceGraph { machine.withLock { $0.declared } }

    /// The graph of the current generation (a reload replaces it).
    var graph: ServiceGraph {
        // The app's, under its own lock (see ``CoordinatorSettings/appGraph``).
        if link == nil, let appGraph = settings.appGraph { return appGraph.withLock { $0 } }
        return machine.withLock { $0.graph }
    }

    var current: AppServices? { published.load() }

    @usableFromInline var generation: Int { published.generation }

    /// The feeds of this coordinator's observers, made by the first (in the state lock, so it
    /// starts with the published snapshot and misses no transition; after the shutdown, ended).
    var feeds: Feeds {
        machine.withLock { machine in
            observers.get {
                let feeds = Feeds()
                if let snapshot = published.load() { _ = feeds.snapshots.offer(.publish(snapshot)) }
                if case .shutDown = machine.phase {
                    _ = feeds.snapshots.finish()
                    _ = feeds.status.finish()
                    _ = feeds.instances.finish()
                }
                return feeds
            }
        }
    }

    /// The feeds of this coordinator's observers, if any observer made them (in the state lock).
    var feedsIfMade: Feeds? { machine.withLock { _ in observers.ifMade } }

    /// The labels of the open (not closing) instances opened here and their cores, in the
    /// order they opened.
    var children: (labels: [String], open: [CoordinatorCore]) {
        machine.withLock { ($0.openChildren, $0.openChildren(of: nil)) }
    }

    /// The coordinator's status (see ``ContainerStatus``).
    var status: ContainerStatus {
        guard declared.scopes.contains(where: { $0.parent != nil }) else {
            return machine.withLock { $0.status(openScopes: $0.openChildren, now: tracer.now) }
        }
        // Nested instances are listed after their parents (each instance's lock, one at a time).
        let scopes = openScopes
        return machine.withLock { $0.status(openScopes: scopes, now: tracer.now) }
    }

    /// The state of the app service called `name` (what ``status`` lists for it, without making the rest).
    func serviceState(named name: String) -> ContainerStatus.Service.State? {
        machine.withLock { $0.serviceState(named: name) }
    }

    /// Whether the build in flight waits for app values (a scope instance's).
    var awaitsAppValues: Bool {
        machine.withLock { machine in
            guard let build = machine.build else { return false }
            return build.awaitingApp || !build.toFetch.isEmpty
        }
    }

    /// Whether one of `slots` has no value in the current generation.
    func lacksValue(amongst slots: [Int]) -> Bool {
        machine.withLock { machine in slots.contains { !machine.state.hasValue($0) } }
    }

    /// The machine's ``CoordinatorStateMachine/debugSummary`` and its children's, indented (for
    /// a test that timed out).
    func debugSummary(depth: Int = 0) -> String {
        let (own, children) = machine.withLock { ($0.debugSummary, $0.children.all.map(\.child)) }
        let indent = String(repeating: "    ", count: depth)
        let lines = own.split(separator: "\n").map { indent + $0 }
        return (lines + children.map { $0.debugSummary(depth: depth + 1) }).joined(separator: "\n")
    }

    /// The build attempt the machine's events belong to now (for events recorded outside it).
    var currentAttempt: BuildAttempt { machine.withLock { $0.currentAttempt } }

    /// Why an operation would be refused now (shut down or shutting down), if it would.
    var refusal: ContainerError? { machine.withLock { $0.refusal() } }

    /// The run times of the current graph's nodes (for tests and the benchmark).
    var runTimes: NodeRunTimes { machine.withLock { $0.state.runTimes } }

    /// The run times shared by the instances of `scope` (for tests and the benchmark).
    func scopeRunTimes(_ scope: String) -> NodeRunTimes? { machine.withLock { $0.scopeRunTimes[scope] } }

    /// Runs `body` while holding the state lock; for tests that check what does not need it.
    func _withStateLock<Result>(_ body: () -> Result) -> Result { machine.withLock { _ in body() } }

    // MARK: Callers

    /// The snapshot of every service `start()` asks for, building what it lacks.
    @usableFromInline
    func start(label: String?) async throws -> AppServices { try await start(.eager, label: label) }

    /// The snapshot holding every service of `key`'s closure, building what it lacks; a build
    /// this request starts runs at no higher priority than `priorityLimit`, when given.
    func start(
        _ key: Machine.Demands.Key, label: String?, priorityLimit: TaskPriority? = nil
    ) async throws -> AppServices {
        // Untraced, a ready snapshot is returned at once. Traced, every caller goes through the
        // state machine, so its `caller.joined` is stamped in the same critical section as the
        // state it found (never after a reset it raced with).
        // Shutting down, here or up the chain: the machine refuses the caller.
        if published.answersReadyInline, !published.isShutDown, !isClosingAbove, let snapshot = current,
            snapshot.holds(key)
        {
            return snapshot
        }
        // A scope instance whose app is ready takes (and leases) the app values now: its build
        // then needs no fetch (untraced only: a traced fetch joins the app as a caller).
        let given = published.answersReadyInline && current == nil ? readyAppValues() : nil
        return try await request(key, label: label, priorityLimit: priorityLimit, given: given)
    }

    /// The request of ``start(_:label:priorityLimit:)``, with the app values it leased (`given`),
    /// which may have been retired since.
    func request(
        _ key: Machine.Demands.Key, label: String?, priorityLimit: TaskPriority?, given: Machine.AppValues?
    ) async throws -> AppServices {
        let caller = callerIDs.add(1, ordering: .relaxed).newValue
        // A caller's name is only ever read by the trace: untraced, none is made.
        let name = label ?? (tracer.isEnabled ? "caller-\(caller)" : "")
        // The provider making this request, if one does (debug builds only; see RunningNode).
        let provider = RunningNode.current
        let closingAbove = isClosingAbove
        return try await TaskFeatures.withEscalationHandler {
            try await withTaskCancellationHandler {
                defer { tookOverFromResumer() }
                return try await withUnsafeThrowingContinuation {
                    (continuation: UnsafeContinuation<AppServices, any Error>) in
                    let waiter = Waiter.task(continuation)
                    let priority = min(Task.currentPriority.rawValue, priorityLimit?.rawValue ?? .max)
                    var stale: Machine.AppValues?
                    let action = transition { machine, now in
                        // Read in the critical section: a cancellation that comes later finds
                        // the caller parked (its handler runs after the flag is set).
                        machine.requested(
                            key, caller: caller, label: name, waiter: waiter, priority: priority,
                            isCancelled: Task.isCancelled, now: now, given: machine.current(given, stale: &stale),
                            from: provider, closingAbove: closingAbove)
                    }
                    if let stale { release(stale) }
                    switch action {
                    case .answer(let waiter, let outcome): resume(waiter, with: outcome)
                    case .park(let raise, let start):
                        if let raise { raise.ticket.escalate(to: raise.priority) }
                        perform(start)
                    }
                }
            } onCancel: {
                if case .resume(let waiter) = transition({ machine, _ in machine.waiterCancelled(caller: caller) }) {
                    resume(waiter, with: .cancelled)
                }
            }
        } onEscalated: { [self] new in
            // The caller itself was raised (someone awaits it at a higher priority): so is its build.
            if case .escalate(let ticket, let priority) = transition({ machine, _ in
                machine.callerEscalated(priority: new)
            }) {
                ticket.escalate(to: priority)
            }
        }
    }

    // MARK: Transitions

    /// Runs one event of the state machine under the lock; in the same critical section it
    /// applies the change of the published snapshot the event made (so the hot path changes in
    /// the order of the transitions) and stamps the trace events. After unlocking, it releases a
    /// replaced snapshot and delivers the events; the caller carries out the rest of the action.
    func transition<Action>(_ event: (inout Machine, Duration) -> Action) -> Action {
        let (action, events, retired, woken, isShutDown, feeds) = machine.withLock { machine in
            let generation = machine.generation
            let action = event(&machine, tracer.now)
            // A new generation may have a new graph (a reload).
            if machine.generation != generation, link == nil, let appGraph = settings.appGraph {
                appGraph.withLock { $0 = machine.graph }
            }
            var retired: RetiredSnapshot?
            // At most an offer or a clear, and the end: no array to allocate per transition.
            var woken: LatestFeed<SnapshotChange>.Wake?
            var ended: LatestFeed<SnapshotChange>.Wake?
            // Read in the lock, where it is made: until an observer made them, there is none to offer to.
            let feeds = observers.ifMade
            if let change = machine.snapshotChange {
                machine.snapshotChange = nil
                switch change {
                case .publish(let snapshot):
                    retired = published.exchange(snapshot)
                    if let feeds { woken = feeds.snapshots.offer(change) }
                case .newGeneration:
                    retired = published.exchange(nil)
                    // Told to the views of the services only: a sequence of snapshots skips it.
                    if let feeds { woken = feeds.snapshots.clear(telling: change) }
                case .clear:
                    // The shutdown: the feed finishes below; views keep what they showed.
                    retired = published.exchange(nil)
                    if let feeds { woken = feeds.snapshots.clear(telling: nil) }
                }
            }
            published.setGeneration(machine.generation, isShutDown: machine.refusal() != nil)
            // Observers end once shut down, not while draining (its build may still publish).
            let isShutDown = if case .shutDown = machine.phase { true } else { false }
            if isShutDown, let feeds { ended = feeds.snapshots.finish() }
            machine._checkInvariants()
            // Stamped in the lock, so the trace orders events as the transitions happened.
            return (action, tracer.stamp(machine.trace.take()), retired, (woken, ended), isShutDown, feeds)
        }
        // Outside the lock: waiting for readers never holds up another transition.
        if let retired { published.retire(retired) }
        woken.0?.resume()
        woken.1?.resume()
        if let feeds {
            if isShutDown {
                // Once shut down, every observer ends (also one that subscribes later).
                feeds.status.finish().resume()
                feeds.instances.finish().resume()
            } else if feeds.status.hasConsumers {
                feeds.status.offer(0).resume()
            }
        }
        tracer.deliver(events)
        return action
    }
}

extension CoordinatorCore {
    /// The feeds of a coordinator's observers (see <doc:ObservingTheServices>).
    final class Feeds: Sendable {
        /// The changes of the published snapshot (``AppServices/Updates``, ``ObservedServices``):
        /// offered in the same critical section as the hot path's slot, so observers see them in
        /// the order they were made.
        let snapshots = LatestFeed<SnapshotChange>()
        /// A tick per transition while anyone observes the status (``ContainerStatus/Updates``).
        let status = LatestFeed<Int>()
        /// A tick per scope instance opened or ended, for the observers of the open instances.
        let instances = LatestFeed<Int>()
    }
}
