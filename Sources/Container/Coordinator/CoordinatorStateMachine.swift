/// The coordinator's state machine (DESIGN §2): a plain value, no locks, no concurrency.
///
/// It owns the **phase** below and composes three smaller machines, each tested on its own:
/// ``CallerRegistry`` (who waits for the running attempt), ``JobSlot`` (the one job in flight,
/// the teardown queue and the operations waiting for it) and ``GenerationValues`` (the
/// generation, its graph and the values kept across attempts). Each event returns its own
/// action (see `CoordinatorStateMachine+Actions.swift`) that the storage carries out after
/// releasing its lock; trace events are collected in ``trace``. Generic over the waiter, the
/// operations' waiter and the build handle, so tests drive it with plain values. The same
/// machine runs the app and every scope instance.
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

    private(set) var phase: Phase = .idle(attempt: 1)
    private var callers = CallerRegistry<Waiter>()
    private var jobs = Jobs()
    private(set) var values: GenerationValues
    /// Trace events of the transitions so far; the storage takes them after every event.
    var trace: TraceBuffer
    let policy: BuildPolicy
    private var nextBuildID = 1
    private var nextOperationID = 1
    /// Attempts of this generation that ended before building anything, because the app's
    /// build failed (a scope instance's): they do not count against the attempt budget.
    private var upstreamFailures = 0
    /// The report of the last build that finished (for the status).
    private(set) var lastReport: BuildReport?

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
            callers.park(.init(id: caller, label: label, waiter: waiter, priority: priority))
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
            callers.park(.init(id: caller, label: label, waiter: waiter, priority: priority))
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

    // MARK: Builds

    /// Records the task of build `id`, created for a ``BuildTicket``.
    mutating func buildLaunched(id: Int, handle: BuildHandle) {
        jobs.buildLaunched(id: id, handle: handle)
    }

    /// Build `id` ended with `result`.
    mutating func buildFinished(id: Int, result: BuildResult, now: Duration) -> BuildFinishedAction {
        let report = result.report
        if case .superseded(let owner) = jobs.buildFinished(id: id) {
            // Superseded by a reset, reload or shutdown: it never publishes, and its values
            // belong to the operation that superseded it (rule 7).
            record(.buildCancelled, report.build)
            jobs.enqueue(result.built.values, owner: owner)
            return .discard(then: continueLifecycle())
        }
        lastReport = report
        values.keep(result.built, report: report)
        switch phase {
        case .running(let running) where running.buildID == id:
            if report.succeeded {
                let snapshot = makeSnapshot(result)
                phase = .ready(snapshot)
                record(.snapshotPublished(services: snapshot.values.count), report.build)
                return .publish(snapshot, resume: resumeAll(.snapshot, of: report.build), then: continueLifecycle())
            }
            let error = failAttempt(running, report: report, now: now)
            return .fail(error, resume: resumeAll(.failure, of: report.build), then: continueLifecycle())
        case .draining(let running, let shutdown) where running.buildID == id:
            // A graceful shutdown let it finish: its callers get its outcome, then it all goes.
            let outcome: CallerOutcome =
                report.succeeded ? .snapshot(makeSnapshot(result)) : .failure(.buildFailed(report))
            let waiters = resumeAll(report.succeeded ? .snapshot : .failure, of: report.build)
            jobs.enqueue(values.retireAll(), owner: shutdown)
            phase = .shutDown(.shutDown(generation: generation))
            return .drained(outcome, resume: waiters, then: continueLifecycle())
        default:
            preconditionFailure("build \(id) finished as the current build in phase \(phase)")
        }
    }

    /// The snapshot of a build in which every node has a value (kept or made).
    private func makeSnapshot(_ result: BuildResult) -> AppServices {
        guard let complete = result.values else { preconditionFailure("a succeeded build has every value") }
        return AppServices(
            generation: generation, report: result.report, layout: values.graph.layout, values: complete,
            scope: scopeInstance, appGeneration: result.appGeneration)
    }

    /// Build `id` of a scope instance could not get the app snapshot: the app build failed (or the
    /// app shut down). Its callers get the app's error; the attempt is not used up, so the next
    /// `start()` tries again (joining the app's next build).
    mutating func upstreamFailed(id: Int, error: ContainerError) -> BuildFinishedAction {
        if case .superseded = jobs.buildFinished(id: id) {
            record(.buildCancelled)
            return .discard(then: continueLifecycle())
        }
        guard case .running(let running) = phase, running.buildID == id else {
            if case .draining(_, let shutdown) = phase {
                let waiters = resumeAll(.failure, of: currentAttempt)
                jobs.enqueue(values.retireAll(), owner: shutdown)
                phase = .shutDown(.shutDown(generation: generation))
                return .drained(.failure(error), resume: waiters, then: continueLifecycle())
            }
            preconditionFailure("build \(id) ended upstream in phase \(phase)")
        }
        let build = BuildAttempt(generation: generation, attempt: running.attempt)
        record(.buildFailed(failure: error.failure ?? .transient, roots: [], exhausted: false), build)
        // The attempt happened (and is traced), but built nothing: it does not use up the budget.
        upstreamFailures += 1
        phase = .idle(attempt: running.attempt + 1)
        return .fail(error, resume: resumeAll(.failure, of: build), then: continueLifecycle())
    }

    /// Moves to the phase after a failed attempt and returns the callers' error.
    private mutating func failAttempt(_ running: RunningAttempt, report: BuildReport, now: Duration) -> ContainerError {
        let failure = report.failure ?? .transient
        let builds = running.attempt - upstreamFailures
        let exhausted = failure == .transient && policy.maxAttempts.map { builds >= $0 } == true
        record(.buildFailed(failure: failure, roots: report.failedNodes, exhausted: exhausted), report.build)
        guard failure == .transient && !exhausted else {
            // Sticky: nothing can use this generation's values any more, so they go now (§5).
            let error =
                exhausted
                ? ContainerError.attemptsExhausted(report, maxAttempts: running.attempt) : .buildFailed(report)
            phase = .failed(error)
            jobs.enqueue(values.retireBuiltInThisGeneration(), owner: nil)
            return error
        }
        // Keep what succeeded: the next attempt reuses it instead of running it again (rule 3).
        let error = ContainerError.buildFailed(report)
        let delay = policy.retryAfter.delay(beforeRetry: running.attempt)
        phase =
            delay > .zero
            ? .backingOff(attempt: running.attempt + 1, allowedAt: now + delay, lastFailure: error)
            : .idle(attempt: running.attempt + 1)
        return error
    }

    /// Takes every parked caller, tracing each one's resumption with `result`.
    private mutating func resumeAll(_ result: CallerResult, of build: BuildAttempt) -> [Waiter] {
        let (waiters, labels) = callers.removeAll(named: trace.isEnabled)
        if trace.isEnabled { for label in labels { record(.callerResumed(caller: label, result: result), build) } }
        return waiters
    }

    /// Records a trace event of the current attempt (or `build`), when anyone listens.
    private mutating func record(_ kind: @autoclosure () -> TraceEvent.Kind, _ build: BuildAttempt? = nil) {
        guard trace.isEnabled else { return }
        trace.add(kind(), build ?? currentAttempt)
    }

    /// Traces a caller answered at once.
    private mutating func traceAnswer(_ label: String, found: CallerState, result: CallerResult) {
        record(.callerJoined(caller: label, state: found))
        record(.callerResumed(caller: label, result: result))
    }

    // MARK: Teardowns

    /// A teardown job ended; `records` pair each torn-down value's owner with its result.
    mutating func teardownFinished(_ records: [Jobs.TeardownRecord]) -> Lifecycle {
        jobs.teardownFinished(records)
        return continueLifecycle()
    }

    /// With no job in flight: tears down what is queued, else completes the operations that
    /// waited for it and launches an attempt that waited for the slot.
    private mutating func continueLifecycle() -> Lifecycle {
        switch jobs.next() {
        case .tearDown(let batch):
            return Lifecycle(completed: [], next: .tearDown(batch))
        case .idle(let completed):
            guard jobs.isIdle, case .running(var running) = phase, !running.launched else {
                return Lifecycle(completed: completed, next: .none)
            }
            running.launched = true
            phase = .running(running)
            jobs.buildStarted(id: running.buildID)
            let build = BuildAttempt(generation: generation, attempt: running.attempt)
            record(.buildStarted, build)
            let ticket = BuildTicket(
                id: running.buildID, build: build, graph: values.graph, kept: values.kept, earlierRuns: values.runs,
                priority: running.priority)
            return Lifecycle(completed: completed, next: .launch(ticket))
        }
    }

    // MARK: Reset, reload, shutdown

    /// Starts a new generation of the same graph; `invalidating` are the slots to rebuild with
    /// their dependents (`nil`: all of them). The others carry over.
    mutating func resetRequested(invalidating: Set<Int>?, waiter: OperationWaiter) -> OperationAction {
        if let refusal = refusal() { return .refuse(waiter, refusal) }
        let operation = takeOperationID()
        let from = generation
        var supersession = supersede(owner: operation, with: .superseded(generation: from, by: from + 1))
        let retired = values.advance(invalidating: invalidating)
        upstreamFailures = 0
        supersession.retired = Set(values.names(of: retired.slots))
        jobs.enqueue(retired.values, owner: operation)
        let invalidated = values.names(of: retired.slots)
        let change = GenerationChange(from: from, to: generation, invalidated: invalidating.map { _ in invalidated })
        let first = BuildAttempt(generation: generation, attempt: 1)
        record(.generationReset(change), first)
        traceResumptions(supersession, result: .superseded)
        phase = .idle(attempt: 1)
        jobs.add(
            .init(
                id: operation, waiter: waiter,
                report: ResetReport(
                    reason: .reset, from: from, to: generation, invalidated: invalidated,
                    carriedOver: values.names(ofAscending: values.kept.keys),
                    cancelledBuild: supersession.cancelledBuild)))
        return .proceed(supersession.action, then: continueLifecycle())
    }

    /// Starts a new generation on `graph` (a reload): the values of `carrying` (new slot to old
    /// slot) carry over, every other value is retired.
    mutating func reloadRequested(
        graph: ServiceGraph, carrying: [Int: Int], change: GenerationChange, waiter: OperationWaiter
    ) -> OperationAction {
        if let refusal = refusal() { return .refuse(waiter, refusal) }
        let operation = takeOperationID()
        let from = generation
        var supersession = supersede(owner: operation, with: .superseded(generation: from, by: from + 1))
        let oldGraph = values.graph
        // The map as arrays by slot: one pass over it, then no hashing per node.
        var fromOld = [Int](repeating: -1, count: graph.nodes.count)
        var isCarried = [Bool](repeating: false, count: oldGraph.nodes.count)
        for (slot, oldSlot) in carrying {
            fromOld[slot] = oldSlot
            isCarried[oldSlot] = true
        }
        supersession.retired = Set(
            oldGraph.nodes[..<oldGraph.builtCount].indices.filter { !isCarried[$0] }.map { oldGraph.nodes[$0].name })
        jobs.enqueue(values.advance(to: graph, carrying: fromOld), owner: operation)
        upstreamFailures = 0
        let first = BuildAttempt(generation: generation, attempt: 1)
        record(.generationReset(change), first)
        traceResumptions(supersession, result: .superseded)
        phase = .idle(attempt: 1)
        let names = graph.serviceNames
        let rebuilt = graph.nodes.indices.filter { fromOld[$0] < 0 }.map { names[$0] }
        let carriedOver = graph.nodes.indices.filter { fromOld[$0] >= 0 }.map { names[$0] }
        jobs.add(
            .init(
                id: operation, waiter: waiter,
                report: ResetReport(
                    reason: .reload, from: from, to: generation, invalidated: rebuilt, carriedOver: carriedOver,
                    cancelledBuild: supersession.cancelledBuild)))
        return .proceed(supersession.action, then: continueLifecycle())
    }

    /// Shuts down: with `graceful`, a launched build may finish first (``Phase/draining(_:shutdown:)``,
    /// until the storage's deadline); otherwise it is cancelled at once. Every value is torn down.
    /// `error` is what later calls get (`.shutDown`, or a scope's `.closed`).
    mutating func shutdownRequested(
        waiter: OperationWaiter, graceful: Bool, error: ContainerError
    ) -> ShutdownAction {
        if let refusal = refusal() { return .refuse(waiter, refusal) }
        let operation = takeOperationID()
        let ended: TraceEvent.Kind = scopeInstance == nil ? .containerShutdown : .scopeClosed
        record(ended)
        let report = ResetReport(
            reason: .shutdown, from: generation, to: generation, invalidated: values.builtNames,
            carriedOver: [])
        jobs.add(.init(id: operation, waiter: waiter, report: report))
        if graceful, case .running(let running) = phase, running.launched {
            phase = .draining(running, shutdown: operation)
            return .drain(operation: operation)
        }
        return .proceed(shutDown(operation: operation, error: error), then: continueLifecycle())
    }

    /// The deadline of a graceful shutdown passed: the build it waited for is cancelled.
    mutating func shutdownDeadlinePassed(operation: Int) -> DeadlineAction {
        guard case .draining(_, operation) = phase else { return .none }
        let supersession = shutDown(operation: operation, error: .shutDown(generation: generation))
        return .cancel(supersession, then: continueLifecycle())
    }

    /// Ends everything for shutdown `operation`.
    private mutating func shutDown(operation: Int, error: ContainerError) -> Supersession {
        var supersession = supersede(owner: operation, with: error)
        supersession.retired = Set(values.builtNames)
        traceResumptions(supersession, result: .failure)
        jobs.enqueue(values.retireAll(), owner: operation)
        if let build = supersession.cancelledBuild { jobs.noteCancelled(build, by: operation) }
        phase = .shutDown(error)
        return supersession.action
    }

    /// Why an operation is refused, if it is: once shut down (or draining), every operation is,
    /// before its arguments are even looked at.
    func refusal() -> ContainerError? {
        switch phase {
        case .shutDown(let error): error
        case .draining: .shutDown(generation: generation)
        default: nil
        }
    }

    private mutating func takeOperationID() -> Int {
        defer { nextOperationID += 1 }
        return nextOperationID
    }

    /// The callers and build a reset or shutdown ends.
    private struct Ended {
        let callers: (waiters: [Waiter], labels: [String])
        let error: ContainerError
        let cancel: BuildHandle?
        let cancelledBuild: BuildAttempt?
        let clearSnapshot: Bool
        let attempt: BuildAttempt
        let operation: Int

        var retired: Set<String> = []

        var action: Supersession {
            Supersession(
                resume: callers.waiters, error: error, cancel: cancel, clearSnapshot: clearSnapshot,
                retired: retired, operation: operation)
        }
    }

    /// Ends the current phase for an operation: parked callers will get `error`, a running
    /// build is cancelled (its late values are reported by `owner`), a published snapshot is cleared.
    private mutating func supersede(owner: Int, with error: ContainerError) -> Ended {
        let attempt = currentAttempt
        var cancelledBuild: BuildAttempt?
        switch phase {
        case .running(let running), .draining(let running, _):
            if running.launched { cancelledBuild = BuildAttempt(generation: generation, attempt: running.attempt) }
        default: break
        }
        var clearSnapshot = false
        if case .ready = phase { clearSnapshot = true }
        return Ended(
            callers: callers.removeAll(named: trace.isEnabled), error: error, cancel: jobs.supersedeBuild(owner: owner),
            cancelledBuild: cancelledBuild, clearSnapshot: clearSnapshot, attempt: attempt, operation: owner)
    }

    private mutating func traceResumptions(_ ended: Ended, result: CallerResult) {
        for label in ended.callers.labels { record(.callerResumed(caller: label, result: result), ended.attempt) }
    }

    // MARK: Status

    /// The machine's part of ``ContainerStatus``.
    func status(openScopes: [String]) -> ContainerStatus {
        let state: ContainerStatus.State
        var failure: ContainerError?
        var nextAttemptAt: Duration?
        switch phase {
        case .idle: state = .idle
        case .running: state = .running
        case .ready: state = .ready
        case .backingOff(_, let allowedAt, let lastFailure):
            state = .waiting
            failure = lastFailure
            nextAttemptAt = allowedAt
        case .failed(let error):
            state = .failed
            failure = error
        case .draining: state = .shuttingDown
        case .shutDown: state = .shutDown
        }
        if failure == nil, let lastReport, !lastReport.succeeded, !lastReport.wasCancelled {
            failure = .buildFailed(lastReport)
        }
        return ContainerStatus(
            state: state, generation: generation, attempt: currentAttempt.attempt, lastBuild: lastReport,
            lastFailure: failure, nextAttemptAt: nextAttemptAt, openScopes: openScopes, waitingCallers: callers.count,
            unreportedTeardowns: jobs.unreported)
    }

    // MARK: Invariants

    /// Every broken invariant of the machine and its parts; empty when it is consistent.
    func invariantViolations() -> [String] {
        var violations = callers.invariantViolations() + jobs.invariantViolations() + values.invariantViolations()
        func require(_ condition: Bool, _ text: @autoclosure () -> String) {
            if !condition { violations.append(text()) }
        }
        switch phase {
        case .running(let running), .draining(let running, _):
            if running.launched {
                require(jobs.buildID == running.buildID, "a launched attempt is the build in flight")
            } else {
                require(!jobs.isIdle, "an attempt waits to launch only while a job is in flight")
            }
        case .ready(let snapshot):
            require(callers.isEmpty, "nobody waits when ready")
            require(snapshot.generation == generation, "the published snapshot is of this generation")
            require(values.kept.count == values.graph.builtCount, "a ready generation keeps every value")
        case .idle, .backingOff, .failed:
            require(callers.isEmpty, "nobody waits without a running attempt")
        case .shutDown:
            require(callers.isEmpty && values.kept.isEmpty, "nothing waits or lives after a shutdown")
        }
        return violations.map { "\($0) (phase \(phase))" }
    }

    /// Debug builds: stops at the first event after which an invariant is broken.
    func _checkInvariants() {
        #if DEBUG
            let violations = invariantViolations()
            assert(violations.isEmpty, "coordinator invariants broken: \(violations)")
        #endif
    }
}

/// Trace events collected by a state machine's transitions, stamped by the storage in the same
/// critical section; nothing is built when nobody listens.
struct TraceBuffer {
    let isEnabled: Bool
    private(set) var events: [(kind: TraceEvent.Kind, build: BuildAttempt)] = []

    init(isEnabled: Bool) { self.isEnabled = isEnabled }

    /// Records an event (call only when ``isEnabled``).
    mutating func add(_ kind: TraceEvent.Kind, _ build: BuildAttempt) { events.append((kind, build)) }

    /// The events recorded since the last call.
    mutating func take() -> [(kind: TraceEvent.Kind, build: BuildAttempt)] {
        guard !events.isEmpty else { return [] }
        defer { events = [] }
        return events
    }
}
