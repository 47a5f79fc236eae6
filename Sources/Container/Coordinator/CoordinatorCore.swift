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
    typealias OperationWaiter = @Sendable (Result<ResetReport, ContainerError>) -> Void
    typealias Machine = CoordinatorStateMachine<Waiter, OperationWaiter, CoordinatorCore>

    /// What ties a scope instance to the coordinator it was opened on. A class: the core reads it
    /// on every fetch and teardown, and a reference is one retain where its fields are six.
    final class Link: Sendable {
        let parent: CoordinatorCore
        /// The instance's id in its parent's book of children.
        let child: Int
        /// `push#notification-42` (`account#ada/scene#w1` nested): how the trace and the errors
        /// name the instance. It ends with `scope#id`: kept as offsets into it, an instance keeps
        /// one string instead of three.
        let label: String
        /// Where the scope's name and the id start in `label`'s UTF-8.
        private let scopeStart: Int32
        private let idStart: Int32
        let parameters: ScopeParameters

        /// The app's coordinator, at the top of the parent chain.
        var root: CoordinatorCore { parent.link?.root ?? parent }

        /// The scope's name (`push`).
        var scope: String { String(decoding: scopeUTF8, as: UTF8.self) }
        /// The scope's name in `label`, to compare without making a string.
        var scopeUTF8: Substring.UTF8View {
            label.utf8.dropFirst(Int(scopeStart)).prefix(Int(idStart - scopeStart) - 1)
        }
        /// The instance's id (`notification-42`).
        var id: String { String(decoding: label.utf8.dropFirst(Int(idStart)), as: UTF8.self) }

        /// `label` must end with `scope#id`.
        init(parent: CoordinatorCore, child: Int, scope: String, id: String, label: String, parameters: ScopeParameters)
        {
            self.parent = parent
            self.child = child
            self.label = label
            let count = label.utf8.count
            idStart = Int32(count - id.utf8.count)
            scopeStart = Int32(count - id.utf8.count - 1 - scope.utf8.count)
            self.parameters = parameters
        }
    }

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

    /// The labels of the instances opened here (closing ones too) and the cores of the open
    /// ones, in the order they opened.
    var children: (labels: [String], open: [CoordinatorCore]) {
        machine.withLock { ($0.openChildren, $0.openChildren(of: nil)) }
    }

    /// The coordinator's status (see ``ContainerStatus``).
    var status: ContainerStatus {
        guard declared.scopes.contains(where: { $0.parent != nil }) else {
            return machine.withLock { $0.status(openScopes: $0.openChildren) }
        }
        // Nested instances are listed after their parents (each instance's lock, one at a time).
        let scopes = openScopes
        return machine.withLock { $0.status(openScopes: scopes) }
    }

    /// The state of the app service called `name` (what ``status`` lists for it, without making the rest).
    func serviceState(named name: String) -> ServiceStatus.State? { machine.withLock { $0.serviceState(named: name) } }

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
        if published.answersReadyInline, let snapshot = current, snapshot.holds(key) { return snapshot }
        let caller = callerIDs.add(1, ordering: .relaxed).newValue
        // A caller's name is only ever read by the trace: untraced, none is made.
        let name = label ?? (tracer.isEnabled ? "caller-\(caller)" : "")
        // A scope instance whose app is ready takes (and leases) the app values now: its build
        // then needs no fetch (untraced only: a traced fetch joins the app as a caller).
        let given = published.answersReadyInline && current == nil ? readyAppValues() : nil
        return try await TaskFeatures.withEscalationHandler {
            try await withTaskCancellationHandler {
                defer { tookOverFromResumer() }
                return try await withCheckedThrowingContinuation {
                    (continuation: CheckedContinuation<AppServices, any Error>) in
                    let waiter = Waiter.task(continuation)
                    let priority = min(Task.currentPriority.rawValue, priorityLimit?.rawValue ?? .max)
                    let action = transition { machine, now in
                        // Read in the critical section: a cancellation that comes later finds
                        // the caller parked (its handler runs after the flag is set).
                        machine.requested(
                            key, caller: caller, label: name, waiter: waiter, priority: priority,
                            isCancelled: Task.isCancelled, now: now, given: given)
                    }
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

    // MARK: Reset, reload and shutdown

    func reset(invalidating names: [String]?) async throws(ContainerError) -> ResetReport {
        try await withOperation { beginReset(invalidating: names, then: $0) }
    }

    /// Performs a reset's transition now (so a superseded build can never publish after this
    /// returns) and calls `done` with its report once its teardowns are finished.
    func beginReset(invalidating names: [String]?, then done: @escaping OperationWaiter) {
        let action = transition { machine, now -> Machine.OperationAction in
            // Shut down: refused as such, whatever the names (none can be reset any more).
            if let refusal = machine.refusal() { return .refuse(done, refusal) }
            var slots: Set<Int>?
            if let names {
                let graph = machine.graph
                let unknown = names.filter { name in
                    graph.layout.slots[name].map { $0 >= graph.builtCount } ?? true
                }
                guard unknown.isEmpty else {
                    let known = Array(graph.serviceNames[..<graph.builtCount])
                    return .refuse(done, .unknownServices(unknown, known: known, generation: machine.generation))
                }
                slots = Set(names.compactMap { graph.layout.slots[$0] })
            }
            return machine.resetRequested(invalidating: slots, waiter: done, now: now)
        }
        perform(action)
    }

    /// Moves to a new generation on `graph` (a new version of the declared graph, `changes` its
    /// difference to the current one): the services whose declarations did not change keep
    /// their values, the others are rebuilt; scope instances of changed scopes are rebuilt on
    /// their new parts, those of removed scopes closed. Returns the report and the instances it
    /// rebuilt and closed.
    func reload(
        _ graph: ServiceGraph, changes: ServiceGraph.Changes, from previous: ServiceGraph
    ) async throws(ContainerError) -> (report: ResetReport, reloaded: [String], closed: [String]) {
        let scoped = Locked<(reloaded: [String], closed: [String])>(([], []))
        let report = try await withOperation { done in
            let action = transition { machine, now -> Machine.OperationAction in
                if let refusal = machine.refusal() { return .refuse(done, refusal) }
                let old = machine.graph
                // In place only when `changes` compared exactly these two graphs (no scopes).
                let whole = graph.appPart === graph && previous.appPart === previous && old === previous
                let plan = ReloadPlan(from: old, to: graph.appPart, changes: changes, inPlace: whole)
                return machine.reloadRequested(declared: graph, plan: plan, changes: changes, waiter: done, now: now)
            }
            if case .proceed(let supersession, _) = action {
                scoped.withLock { scoped in
                    for order in supersession.children {
                        switch order.order {
                        case .reload: scoped.reloaded.append(order.child.label ?? "")
                        case .close: scoped.closed.append(order.child.label ?? "")
                        case .supersede: break
                        }
                    }
                }
            }
            perform(action)
        }
        let (reloaded, closed) = scoped.withLock { $0 }
        return (report, reloaded, closed)
    }

    /// Rebuilds this scope instance on a new `part` of its app's graph (its app's reload).
    func beginReload(_ part: ServiceGraph, runTimes: NodeRunTimes, then done: @escaping OperationWaiter) {
        perform(
            transition { machine, now -> Machine.OperationAction in
                let changes = part.changes(from: machine.graph)
                // Everything is rebuilt: its app values may have changed with the part.
                let plan = ReloadPlan(fromOld: [Int](repeating: -1, count: part.builtCount), in: part)
                return machine.reloadRequested(
                    declared: part, plan: plan, changes: changes, runTimes: runTimes, waiter: done, now: now)
            })
    }

    /// Shuts down; a running build may finish until `deadline` (`nil`: cancelled at once).
    /// `error` is what later calls get. Scope instances are closed first, in the same step that
    /// refuses every new call.
    func shutdown(deadline: ContinuousClock.Instant?, error: ContainerError) async throws(ContainerError) -> ResetReport
    {
        try await withOperation { done in beginShutdown(deadline: deadline, error: error, then: done) }
    }

    /// Performs a shutdown's transition now and calls `done` once everything is torn down.
    func beginShutdown(
        deadline: ContinuousClock.Instant? = nil, error: ContainerError, reportedTo parentOperation: Int? = nil,
        then done: @escaping OperationWaiter
    ) {
        let finished: OperationWaiter = { [self] result in
            if case .success(let report) = result {
                if let link {
                    link.parent.childEnded(
                        link.child, reportedTo: parentOperation, records: parentOperation == nil ? [] : report.tornDown,
                        closed: true)
                }
            }
            done(result)
        }
        let action = transition { machine, now in
            machine.shutdownRequested(waiter: finished, graceful: deadline != nil, error: error, now: now)
        }
        // Input nodes waiting for a value stop waiting: nothing will supply one now. After the
        // transition: the callers are the shutdown's already (or, draining, answered `shutDown`
        // when they need an input never supplied), not those of a build failing with `Closed`.
        if link == nil, !action.isRefusal { inputs.close() }
        switch action {
        case .refuse(let waiter, let error): waiter(.failure(error))
        case .drain(let operation, let children):
            perform(children)
            transition { machine, _ in machine.shutdownTraced() }
            Task.detached { [self] in
                // The deadline is a timer, not an order of events: it only bounds the wait.
                if let deadline { try? await Task.sleep(until: deadline, clock: .continuous) }
                perform(transition { machine, now in machine.shutdownDeadlinePassed(operation: operation, now: now) })
            }
        case .proceed(let supersession, let lifecycle):
            resume(supersession.resume)
            supersession.cancel?.cancel()
            perform(supersession.children)
            transition { machine, _ in machine.shutdownTraced() }
            perform(lifecycle)
        }
    }

    /// Runs `begin` with a completion that resumes this call.
    func withOperation(_ begin: (@escaping OperationWaiter) -> Void) async throws(ContainerError) -> ResetReport {
        let result = await withCheckedContinuation { continuation in
            begin { [self] in
                handingOverToCaller()
                continuation.resume(returning: $0)
            }
        }
        tookOverFromResumer()
        return try result.get()
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
        /// The changes of the published snapshot (``SnapshotUpdates``, ``ObservedServices``):
        /// offered in the same critical section as the hot path's slot, so observers see them in
        /// the order they were made.
        let snapshots = LatestFeed<SnapshotChange>()
        /// A tick per transition while anyone observes the status (``StatusUpdates``).
        let status = LatestFeed<Int>()
        /// A tick per scope instance opened or ended, for the observers of the open instances.
        let instances = LatestFeed<Int>()
    }
}
