/// The coordinator's state machine (the rules of <doc:CoordinatorRules>): a plain value, no locks, no concurrency.
///
/// It owns the **phase** below and composes three smaller machines, each unit-tested on its own:
/// ``CallerRegistry`` (who waits for the running attempt), ``JobSlot`` (the one job in flight,
/// the teardown queue and the operations waiting for it) and ``GenerationValues`` (the
/// generation, its graph and the values kept across attempts). Each event returns its own
/// action (see `CoordinatorStateMachine+Actions.swift`) that the storage carries out after
/// releasing its lock; trace events are collected in ``trace``. Generic over the waiter, the
/// operations' waiter and the build handle, so tests drive it with plain values. The same
/// machine runs the app and every scope instance.
///
/// One file per concern: this one holds the state and the callers' events;
/// `+Builds` a build's life and the teardown jobs, `+Operations` reset, reload and shutdown,
/// `+Status` the status and the invariants, `+Actions` what each event returns. The stored
/// properties are internal only so that those extensions can change them; nothing outside the
/// machine does (the storage keeps the machine private, behind its lock).
///
///     idle ──start──▶ running ──success──▶ ready
///       ▲               │ transient, budget left
///       └─ backingOff ◀─┘ (until retryAfter: callers get the last failure at once)
///     running ──permanent, or the last allowed attempt──▶ failed (sticky until reset)
///     any ──reset / reload──▶ idle (new generation; a running build is cancelled, never publishes)
///     running ──shutdown(deadline)──▶ draining ──build ends, or the deadline──▶ shutDown
///     any other ──shutdown──▶ shutDown
struct CoordinatorStateMachine<Waiter, OperationWaiter, BuildHandle> {
    typealias Jobs = JobSlot<BuildHandle, OperationWaiter>

    /// Where the coordinator is.
    enum Phase {
        /// Nothing runs; the next `start()` launches `attempt` of the generation.
        case idle(attempt: Int)
        /// An attempt is running (or waits for a teardown job before it launches).
        case running(RunningAttempt)
        /// The generation's snapshot is published.
        case ready(AppServices)
        /// Attempt `attempt` is not allowed before `allowedAt`; callers get `lastFailure` at once.
        case backingOff(attempt: Int, allowedAt: Duration, lastFailure: ContainerError)
        /// Sticky failure: a permanent one, or the attempt budget is used up.
        case failed(ContainerError)
        /// A graceful shutdown (operation `shutdown`) lets this attempt finish; new callers are refused.
        case draining(RunningAttempt, shutdown: Int)
        /// Shut down (or closed): every call is refused with `error`.
        case shutDown(ContainerError)
    }

    /// The attempt being built.
    struct RunningAttempt {
        let buildID: Int
        let attempt: Int
        /// False while the build waits for a teardown job to finish.
        var launched: Bool
        /// The highest priority among its callers (`TaskPriority.rawValue`).
        var priority: UInt8
    }

    var phase: Phase = .idle(attempt: 1)
    var callers = CallerRegistry<Waiter>()
    var jobs = Jobs()
    var values: GenerationValues
    /// Trace events of the transitions so far; the storage takes them after every event.
    var trace: TraceBuffer
    let policy: BuildPolicy
    var nextBuildID = 1
    var nextOperationID = 1
    /// Attempts of this generation that ended before building anything, because the app's
    /// build failed (a scope instance's): they do not count against the attempt budget.
    var upstreamFailures = 0
    /// The report of the last build that finished (for the status).
    var lastReport: BuildReport?

    /// The scope instance this machine runs (`nil`: the app), named in its snapshots.
    let scopeInstance: String?

    init(graph: ServiceGraph, policy: BuildPolicy = .default, tracing: Bool = true, scopeInstance: String? = nil) {
        values = GenerationValues(graph: graph)
        self.policy = policy
        self.scopeInstance = scopeInstance
        trace = TraceBuffer(isEnabled: tracing)
    }

    /// The current generation.
    var generation: Int { values.generation }

    /// The published snapshot, when ready.
    var snapshot: AppServices? {
        if case .ready(let snapshot) = phase { return snapshot }
        return nil
    }

    /// Teardowns no operation has reported yet (e.g. after a permanent failure).
    var unreportedTeardowns: [ResetReport.Teardown] { jobs.unreported }

    /// The attempt the current phase's events belong to.
    var currentAttempt: BuildAttempt {
        let attempt =
            switch phase {
            case .idle(let attempt), .backingOff(let attempt, _, _): attempt
            case .running(let running), .draining(let running, _): running.attempt
            case .ready(let snapshot): snapshot.report.attempt
            case .failed(let error), .shutDown(let error): error.report?.attempt ?? lastReport?.attempt ?? 1
            }
        return BuildAttempt(generation: generation, attempt: attempt)
    }

    // MARK: Callers

    /// A caller asks for the snapshot (`start()`).
    ///
    /// A caller whose task is already cancelled is answered without waiting: with the snapshot
    /// or the sticky failure when there is one, otherwise with `CancellationError`; it never
    /// starts or joins a build. The rule is the same traced or not.
    ///
    /// - Parameters:
    ///   - isCancelled: whether the caller's task is cancelled, read in the critical section.
    ///   - now: time since the container was created, for the attempt budget.
    mutating func startRequested(
        caller: Int, label: String, waiter: Waiter, priority: UInt8, isCancelled: Bool, now: Duration
    ) -> StartAction {
        switch phase {
        case .ready(let snapshot):
            traceAnswer(label, found: .ready, result: .snapshot)
            return .answer(waiter, .snapshot(snapshot))
        case .failed(let error):
            traceAnswer(label, found: .failed, result: .failure)
            return .answer(waiter, .failure(error))
        case .shutDown(let error):
            traceAnswer(label, found: .shutDown, result: .failure)
            return .answer(waiter, .failure(error))
        case .draining:
            traceAnswer(label, found: .shutDown, result: .failure)
            return .answer(waiter, .failure(.shutDown(generation: generation)))
        case .backingOff(let attempt, let allowedAt, let lastFailure):
            guard now >= allowedAt else {
                traceAnswer(label, found: .waiting, result: .failure)
                return .answer(waiter, .failure(lastFailure))
            }
            phase = .idle(attempt: attempt)
            return startRequested(
                caller: caller, label: label, waiter: waiter, priority: priority, isCancelled: isCancelled, now: now)
        case .running(var running):
            record(.callerJoined(caller: label, state: .running))
            if isCancelled {
                record(.callerCancelled(caller: label))
                return .answer(waiter, .cancelled)
            }
            callers.park(.init(id: caller, label: label, waiter: waiter))
            guard priority > running.priority else { return .park }
            running.priority = priority
            phase = .running(running)
            // A build still waiting for a teardown launches at the raised priority.
            guard let handle = jobs.buildHandle else { return .park }
            return .escalate(handle, priority: priority)
        case .idle(let attempt):
            record(.callerJoined(caller: label, state: .idle))
            if isCancelled {
                record(.callerCancelled(caller: label))
                return .answer(waiter, .cancelled)
            }
            callers.park(.init(id: caller, label: label, waiter: waiter))
            phase = .running(
                RunningAttempt(buildID: nextBuildID, attempt: attempt, launched: false, priority: priority))
            nextBuildID += 1
            // Launch now, unless a teardown job must finish first (rule 8).
            if case .launch(let ticket) = continueLifecycle().next { return .launch(ticket) }
            return .park
        }
    }

    /// A parked caller's task was cancelled: it stops waiting at once; the build goes on (rule 5).
    mutating func waiterCancelled(caller: Int) -> CancelAction {
        guard let entry = callers.remove(caller) else { return .none }
        record(.callerCancelled(caller: entry.label))
        return .resume(entry.waiter)
    }

    /// A parked caller's task was raised to `priority` (someone awaits it): so is the build.
    mutating func callerEscalated(priority: UInt8) -> EscalationAction {
        guard case .running(var running) = phase, priority > running.priority else { return .none }
        running.priority = priority
        phase = .running(running)
        guard let handle = jobs.buildHandle else { return .none }
        return .escalate(handle, priority: priority)
    }
}
