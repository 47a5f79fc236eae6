import Synchronization

/// Owns the state machine's lock and carries out its effects after unlocking:
/// resumes continuations, launches and cancels build tasks, runs teardowns, emits events.
@usableFromInline
final class CoordinatorStorage: Sendable {
    typealias Waiter = CheckedContinuation<AppServices, any Error>
    typealias ResetWaiter = CheckedContinuation<Result<ResetReport, ContainerError>, Never>
    typealias Machine = CoordinatorStateMachine<Waiter, ResetWaiter, Task<Void, Never>>

    let graph: ServiceGraph
    let policy: BuildPolicy
    let tracer: Tracer
    let redactor: Redactor
    private let machine: Locked<Machine>
    /// The published snapshot, for the synchronous hot path: lock-free reads (see `SnapshotSlot`);
    /// written only under `machine`'s lock, so it changes in the same order as the state.
    @usableFromInline let published = SnapshotSlot()

    init(graph: ServiceGraph, policy: BuildPolicy, sinks: [any TraceSink]) {
        self.graph = graph
        self.policy = policy
        self.tracer = Tracer(sinks: sinks)
        self.redactor = Redactor(secrets: graph.secrets)
        self.machine = Locked(Machine(graph: graph, tracing: !sinks.isEmpty))
    }

    var current: AppServices? { published.load() }

    @usableFromInline var generation: Int { machine.withLock { $0.generation } }

    // MARK: Callers

    @usableFromInline
    func start(label: String?) async throws -> AppServices {
        // Untraced, a ready snapshot is returned at once. Traced, every caller goes through the
        // state machine, so its `caller.joined` is stamped in the same critical section as the
        // state it found (never after a reset it raced with).
        if !tracer.isEnabled, let snapshot = current { return snapshot }
        let caller = machine.withLock { $0.allocateCaller() }
        // A caller's name is only ever read by the trace: untraced, none is made.
        let name = label ?? (tracer.isEnabled ? "caller-\(caller)" : "")
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                transition { $0.startRequested(caller: caller, label: name, waiter: waiter) }
            }
        } onCancel: {
            transition { $0.waiterCancelled(caller: caller) }
        }
    }

    // MARK: Reset and shutdown

    func reset(invalidating names: [String]?) async throws(ContainerError) -> ResetReport {
        var slots: Set<Int>?
        if let names {
            let unknown = names.filter { graph.layout.slots[$0] == nil }
            guard unknown.isEmpty else {
                throw .unknownServices(unknown, known: graph.serviceNames, generation: generation)
            }
            slots = Set(names.compactMap { graph.layout.slots[$0] })
        }
        let result = await withCheckedContinuation { (waiter: ResetWaiter) in
            transition { $0.resetRequested(invalidating: slots, waiter: waiter) }
        }
        return try result.get()
    }

    func shutdown() async throws(ContainerError) -> ResetReport {
        let result = await withCheckedContinuation { (waiter: ResetWaiter) in
            transition { $0.shutdownRequested(waiter: waiter) }
        }
        return try result.get()
    }

    // MARK: Effects

    /// Runs one event of the state machine under the lock, launching a build in the same
    /// critical section when the event asks for one (rule 1: `running` is recorded with its
    /// task before anyone can observe it), then carries out the rest of the effects.
    private func transition(_ event: (inout Machine) -> Machine.Effects) {
        let (effects, events) = machine.withLock { machine in
            let effects = event(&machine)
            // Stamped in the lock, so the trace orders events as the transitions happened.
            let events = tracer.stamp(effects.events)
            if let ticket = effects.launch {
                let task = Task.detached(priority: Task.currentPriority) { [self] in await runBuild(ticket) }
                machine.buildLaunched(id: ticket.id, handle: task)
            }
            switch effects.snapshotChange {
            case .publish(let snapshot)?: published.store(snapshot)
            case .clear?: published.store(nil)
            case nil: break
            }
            return (effects, events)
        }
        perform(effects, events: events)
    }

    private func perform(_ effects: Machine.Effects, events: [Tracer.Stamped]) {
        tracer.deliver(events)
        for (waiter, outcome) in effects.resumptions {
            switch outcome {
            case .snapshot(let snapshot): waiter.resume(returning: snapshot)
            case .failure(let error): waiter.resume(throwing: error)
            case .cancelled: waiter.resume(throwing: CancellationError())
            }
        }
        effects.cancel?.cancel()
        if let boxes = effects.tearDown {
            Task.detached { [self] in await runTeardown(boxes) }
        }
        for (waiter, result) in effects.completedResets { waiter.resume(returning: result) }
    }

    private func runBuild(_ ticket: Machine.BuildTicket) async {
        let builder = GraphBuilder(
            graph: graph, generation: ticket.generation, attempt: ticket.attempt, kept: ticket.kept,
            earlierRuns: ticket.earlierRuns, policy: policy, tracer: tracer, redactor: redactor)
        let result = await builder.run()
        transition { $0.buildFinished(id: ticket.id, result: result) }
    }

    /// Tears values down one at a time, in the order given (dependents first); errors are
    /// reported in the trace and the reset's report, never swallowed.
    private func runTeardown(_ boxes: [AnyServiceBox]) async {
        var records: [(box: ObjectIdentifier, record: ResetReport.Teardown)] = []
        for box in boxes where box.hasTearDown {
            var message: String?
            do {
                try await box.tearDown()
            } catch {
                message = redactor.redact(String(describing: error))
            }
            records.append(
                (ObjectIdentifier(box), .init(service: box.name, generation: box.builtInGeneration, error: message)))
            tracer.emit(
                .nodeTornDown(node: box.name, error: message), generation: box.builtInGeneration,
                attempt: box.builtInAttempt)
        }
        transition { $0.teardownFinished(records) }
    }
}
