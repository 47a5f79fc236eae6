import Synchronization

/// Owns the state machine's lock and carries out its actions after unlocking: resumes
/// continuations, launches, escalates and cancels build tasks, runs teardowns, emits events.
///
/// The same type runs the app's graph and every scope instance's (see <doc:Scopes>): a scope
/// instance's storage has a ``ScopeBinding`` (its builds first get the app's snapshot), the
/// app's has a ``ScopeRegistry`` of the open instances (its resets supersede those that use a
/// retired service, and its teardowns wait for theirs).
@usableFromInline
final class CoordinatorStorage: Sendable {
    typealias Waiter = CheckedContinuation<AppServices, any Error>
    /// Told the result of a reset, reload or shutdown; called exactly once.
    typealias OperationWaiter = @Sendable (Result<ResetReport, ContainerError>) -> Void
    typealias Machine = CoordinatorStateMachine<Waiter, OperationWaiter, BuildTaskHandle>

    /// The policy, tracer and redactor, shared with the scope instances.
    let environment: CoordinatorEnvironment
    var policy: BuildPolicy { environment.policy }
    var tracer: Tracer { environment.tracer }
    var redactor: Redactor { environment.redactor }
    /// For a scope instance: its parent and parameters.
    let binding: ScopeBinding?
    /// For the app: the open scope instances.
    let scopes: ScopeRegistry?
    private let machine: Locked<Machine>
    /// The published snapshot and generation, for the synchronous hot path: lock-free reads
    /// (see `SnapshotSlot`); changed only under `machine`'s lock, in the same order as the state.
    @usableFromInline let published: SnapshotSlot
    /// Caller ids, given before a caller suspends (so its cancellation can name it).
    private let callerIDs = Atomic<Int>(0)

    /// The app's storage, over the app part of `declared`.
    init(declared: ServiceGraph, policy: BuildPolicy, tracer: Tracer) {
        // Every secret of the graph, scoped services' too: scope instances share this redactor.
        self.environment = CoordinatorEnvironment(
            policy: policy, tracer: tracer, redactor: Redactor(secrets: declared.secrets))
        self.binding = nil
        self.scopes = ScopeRegistry(declared: declared)
        self.machine = Locked(Machine(graph: declared.appPart, policy: policy, tracing: tracer.isEnabled))
        self.published = SnapshotSlot(answersReadyInline: !tracer.isEnabled)
    }

    /// A scope instance's storage, over the scope's part of the graph.
    init(scopePart: ServiceGraph, binding: ScopeBinding, parent: CoordinatorStorage) {
        self.environment = parent.environment
        self.binding = binding
        self.scopes = nil
        self.machine = Locked(
            Machine(
                graph: scopePart, policy: parent.policy, tracing: parent.tracer.isEnabled,
                scopeInstance: binding.label))
        self.published = SnapshotSlot(answersReadyInline: !parent.tracer.isEnabled, shards: 1)
    }

    /// The scope instance's label in the trace (`nil` for the app).
    var scopeLabel: String? { binding?.label }

    /// The graph of the current generation (a reload replaces it).
    var graph: ServiceGraph { machine.withLock { $0.values.graph } }

    var current: AppServices? { published.load() }

    @usableFromInline var generation: Int { published.generation }

    // MARK: Callers

    @usableFromInline
    func start(label: String?) async throws -> AppServices {
        // Untraced, a ready snapshot is returned at once. Traced, every caller goes through the
        // state machine, so its `caller.joined` is stamped in the same critical section as the
        // state it found (never after a reset it raced with).
        if published.answersReadyInline, let snapshot = current { return snapshot }
        let caller = callerIDs.add(1, ordering: .relaxed).newValue
        // A caller's name is only ever read by the trace: untraced, none is made.
        let name = label ?? (tracer.isEnabled ? "caller-\(caller)" : "")
        return try await withTaskPriorityEscalationHandler {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (waiter: Waiter) in
                    let priority = Task.currentPriority.rawValue
                    let action = transition(startingBuildHere: true) { machine, now in
                        // Read in the critical section: a cancellation that comes later finds
                        // the caller parked (its handler runs after the flag is set).
                        machine.startRequested(
                            caller: caller, label: name, waiter: waiter, priority: priority,
                            isCancelled: Task.isCancelled, now: now)
                    }
                    switch action {
                    case .answer(let waiter, let outcome): resume(waiter, with: outcome)
                    case .park, .launch: break
                    case .escalate(let task, let priority): task.escalate(to: priority)
                    }
                }
            } onCancel: {
                if case .resume(let waiter) = transition({ machine, _ in machine.waiterCancelled(caller: caller) }) {
                    waiter.resume(throwing: CancellationError())
                }
            }
        } onPriorityEscalated: { _, new in
            // The caller itself was raised (someone awaits it at a higher priority): so is its build.
            if case .escalate(let task, let priority) = transition({ machine, _ in
                machine.callerEscalated(priority: new.rawValue)
            }) {
                task.escalate(to: priority)
            }
        }
    }

    func resume(_ waiter: Waiter, with outcome: Machine.CallerOutcome) {
        switch outcome {
        case .snapshot(let snapshot): waiter.resume(returning: snapshot)
        case .failure(let error): waiter.resume(throwing: error)
        case .cancelled: waiter.resume(throwing: CancellationError())
        }
    }

    // MARK: Reset, reload and shutdown

    func reset(invalidating names: [String]?) async throws(ContainerError) -> ResetReport {
        try await withOperation { beginReset(invalidating: names, then: $0) }
    }

    /// Performs a reset's transition now (so a superseded build can never publish after this
    /// returns) and calls `done` with its report once its teardowns are finished.
    func beginReset(invalidating names: [String]?, then done: @escaping OperationWaiter) {
        let action = transition { machine, _ -> Machine.OperationAction in
            // Shut down: refused as such, whatever the names (none can be reset any more).
            if let refusal = machine.refusal() { return .refuse(done, refusal) }
            var slots: Set<Int>?
            if let names {
                let graph = machine.values.graph
                let unknown = names.filter { name in
                    graph.layout.slots[name].map { $0 >= graph.builtCount } ?? true
                }
                guard unknown.isEmpty else {
                    let known = Array(graph.serviceNames[..<graph.builtCount])
                    return .refuse(done, .unknownServices(unknown, known: known, generation: machine.generation))
                }
                slots = Set(names.compactMap { graph.layout.slots[$0] })
            }
            return machine.resetRequested(invalidating: slots, waiter: done)
        }
        perform(action)
    }

    /// Moves to a new generation on `graph` (a part of a reloaded graph): the services of
    /// `changes.carriedOver` keep their values, the others are rebuilt. Calls `done` with the
    /// report once the retired values are torn down.
    func beginReload(
        _ graph: ServiceGraph, changes: GraphChanges, from previous: ServiceGraph? = nil,
        then done: @escaping OperationWaiter
    ) {
        perform(
            transition { machine, _ in
                let old = machine.values.graph
                // In place only when `changes` compared exactly these two graphs.
                let plan = ReloadPlan(from: old, to: graph, changes: changes, inPlace: old === previous)
                let names = graph.serviceNames
                let rebuilt = plan.rebuiltSlots.map { names[$0] }
                // The app's own services (a scope part's are its instances' business).
                func own(_ name: String) -> Bool {
                    (graph.layout.slots[name].map { $0 < graph.builtCount } ?? false)
                        || (old.layout.slots[name].map { $0 < old.builtCount } ?? false)
                }
                let change = GenerationChange(
                    from: machine.generation, to: machine.generation + 1, invalidated: rebuilt, reason: .reload,
                    added: changes.added.filter(own), removed: changes.removed.filter(own),
                    changed: changes.changed.filter(own))
                return machine.reloadRequested(graph: graph, plan: plan, change: change, waiter: done)
            })
    }

    /// Shuts down; a running build may finish until `deadline` (`nil`: cancelled at once).
    /// `error` is what later calls get. The app closes its scope instances first (see <doc:Scopes>).
    func shutdown(deadline: ContinuousClock.Instant?, error: ContainerError) async throws(ContainerError) -> ResetReport
    {
        // Scoped values go before the app values they use; their teardowns lead the report.
        let scoped = await scopes?.closeAll() ?? []
        let report = try await withOperation { done in
            let action = transition { machine, _ in
                machine.shutdownRequested(waiter: done, graceful: deadline != nil, error: error)
            }
            switch action {
            case .refuse(let waiter, let error): waiter(.failure(error))
            case .drain(let operation):
                Task.detached { [self] in
                    // The deadline is a timer, not an order of events: it only bounds the wait.
                    if let deadline { try? await Task.sleep(until: deadline, clock: .continuous) }
                    perform(transition { machine, _ in machine.shutdownDeadlinePassed(operation: operation) })
                }
            case .proceed(let supersession, let lifecycle): perform(supersession, lifecycle)
            }
        }
        return scoped.isEmpty ? report : report.with(tornDown: scoped + report.tornDown)
    }

    /// Runs `begin` with a completion that resumes this call.
    func withOperation(
        _ begin: (@escaping OperationWaiter) -> Void
    ) async throws(ContainerError) -> ResetReport {
        let result = await withCheckedContinuation { continuation in
            begin { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Why an operation would be refused now (shut down or shutting down), if it would.
    var refusal: ContainerError? { machine.withLock { $0.refusal() } }

    /// The coordinator's status (see ``ContainerStatus``).
    func status(openScopes: [String]) -> ContainerStatus { machine.withLock { $0.status(openScopes: openScopes) } }

    /// Runs `body` while holding the state lock; for tests that check what does not need it.
    func _withStateLock<Result>(_ body: () -> Result) -> Result { machine.withLock { _ in body() } }

    // MARK: Transitions

    /// Runs one event of the state machine under the lock. In the same critical section it
    /// launches a build the event asks for (rule 1: `running` is recorded with its task, or the
    /// ticket that gets it, before anyone can observe it) and changes the published snapshot,
    /// so the hot path changes in the order of the transitions. After unlocking, it releases a replaced snapshot and
    /// delivers the trace events; the caller carries out the rest of the action.
    ///
    /// With `startingBuildHere` (a caller's `start()`), a build of quick nodes alone (see
    /// ``CoordinatorEnvironment/startsOnLaunchingThread(_:)``) starts after unlocking, on this
    /// thread, rather than in a task created in the lock.
    func transition<Action: CoordinatorAction>(
        startingBuildHere: Bool = false, _ event: (inout Machine, Duration) -> Action
    ) -> Action where Action.Ticket == Machine.BuildTicket {
        let (action, events, retired, startsHere) = machine.withLock { machine in
            let action = event(&machine, tracer.now)
            var startsHere: BuildTicket?
            if let ticket = action.ticket {
                if startingBuildHere && environment.startsOnLaunchingThread(ticket) {
                    startsHere = ticket
                    machine.buildLaunched(id: ticket.id, handle: .startedOnLaunchingThread(ticket))
                } else {
                    let task = Task.detached(priority: TaskPriority(rawValue: ticket.priority)) { [self] in
                        await runBuild(ticket)
                    }
                    machine.buildLaunched(id: ticket.id, handle: .task(task))
                }
            }
            var retired: RetiredSnapshot?
            switch action.snapshotChange {
            case .publish(let snapshot)?: retired = published.exchange(snapshot)
            case .clear?: retired = published.exchange(nil)
            case nil: break
            }
            published.setGeneration(machine.generation, isShutDown: machine.refusal() != nil)
            machine._checkInvariants()
            // Stamped in the lock, so the trace orders events as the transitions happened.
            return (action, tracer.stamp(machine.trace.take(), scope: scopeLabel), retired, startsHere)
        }
        // Outside the lock: waiting for readers never holds up another transition.
        if let retired { published.retire(retired) }
        tracer.deliver(events)
        if let ticket = startsHere {
            // A build of quick nodes alone runs here, up to its first suspension (usually to its
            // end): no thread is woken to run it, and its caller finds its snapshot without
            // suspending. It takes the state lock again to finish, so it starts after unlocking.
            ticket.attach(
                Task.immediateDetached(priority: TaskPriority(rawValue: ticket.priority)) { [self] in
                    await runBuild(ticket)
                })
        }
        return action
    }

    private func perform(_ action: Machine.OperationAction) {
        switch action {
        case .refuse(let waiter, let error): waiter(.failure(error))
        case .proceed(let supersession, let lifecycle): perform(supersession, lifecycle)
        }
    }

    private func perform(_ action: Machine.DeadlineAction) {
        if case .cancel(let supersession, let lifecycle) = action { perform(supersession, lifecycle) }
    }

    private func perform(_ supersession: Machine.Supersession, _ lifecycle: Machine.Lifecycle) {
        // Scope instances built on a retired service are superseded now, before this
        // operation's teardown can start (it waits for theirs: scoped values go first, the Scopes article).
        scopes?.supersede(using: supersession.retired, operation: supersession.operation)
        for waiter in supersession.resume { waiter.resume(throwing: supersession.error) }
        supersession.cancel?.cancel()
        perform(lifecycle)
    }

    func perform(_ lifecycle: Machine.Lifecycle) {
        if case .tearDown(let batch) = lifecycle.next {
            // Scope instances superseded by the operation that queued these values go first.
            let superseded = scopes?.takeSupersessions() ?? []
            if superseded.isEmpty && !batch.contains(where: { $0.box.hasTearDown }) {
                // Nothing to run or to wait for: the job ends here rather than in a task of its
                // own, so a reset of values without teardowns completes without a thread hop
                // (with more busy threads than cores, every hop can wait a scheduling slice).
                perform(transition { machine, _ in machine.teardownFinished([]) })
            } else {
                Task.detached { [self] in await runTeardown(batch, after: superseded) }
            }
        }
        for (waiter, report) in lifecycle.completed {
            guard let scopes, scopes.hasSupersessions(reportedBy: report.operation) else {
                waiter(.success(report))
                continue
            }
            // The instances this operation superseded report through it, once torn down.
            Task {
                let scoped = await scopes.teardowns(reportedBy: report.operation)
                waiter(.success(report.with(tornDown: scoped + report.tornDown)))
            }
        }
    }
}
