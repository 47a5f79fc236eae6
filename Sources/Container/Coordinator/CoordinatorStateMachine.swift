/// The coordinator's state machine: a plain value, no locks, no concurrency.
///
/// It decides everything a coordinator does, one event at a time: which nodes a request adds
/// to the build and which start when a node ends (the build itself only runs what it is told,
/// see ``BuildWorker``), which callers are answered with what, when a generation ends and what
/// it retires, which scope instances that supersedes, what is torn down when. Each event
/// returns its own action (see `CoordinatorStateMachine+Actions.swift`) that the storage
/// carries out after releasing its lock; trace events and the published snapshot's changes are
/// collected for the storage to take in the same critical section. Generic over the waiter,
/// the operations' waiter and the child handle, so tests drive it with plain values. The same
/// machine runs the app and every scope instance.
///
/// One file per concern: this one holds the state and the callers' events; `+Builds` a
/// build's life, `+AppValues` the app values a scope instance's build fetches, `+Answers` what
/// the callers get, `+Operations` reset, reload and shutdown, `+Children` the scope instances,
/// `+Status` the status and the invariants, `+Actions` what each event returns, `+Trace` its
/// trace events.
///
///     open ──shutdown(graceful), a build in flight──▶ draining ──build ends, or the deadline──▶ shutDown
///     open ──shutdown, close──▶ shutDown (every call refused; values torn down, children first)
///
/// Within `open`, each request builds what its closure lacks: it joins the build in flight
/// (adding the nodes it lacks) or starts one; a generation's reset or reload cancels the build,
/// which never publishes, and the next build starts once it stopped and the retired values are
/// torn down.
struct CoordinatorStateMachine<Waiter, OperationWaiter, Child> {
    typealias Demands = DemandBook<Waiter>
    typealias Teardowns = TeardownQueue<OperationWaiter>
    typealias Children = ChildBook<Child>

    /// Whether the coordinator takes calls.
    enum Phase {
        case open
        /// A graceful shutdown (operation `shutdown`) lets the build in flight finish; new
        /// callers and operations are refused.
        case draining(shutdown: Int)
        /// Shut down (or closed) by operation `operation`: every call is refused with `error`
        /// (boxed: the phase of an open coordinator takes a word, not the size of an error).
        indirect case shutDown(ContainerError, operation: Int)
    }

    var phase = Phase.open
    /// Where the trace of the shutdown (or close) stands (``shutdownTraced(now:)``).
    var endTrace = EndTrace.pending

    /// Where the trace of the shutdown (or close) stands.
    enum EndTrace {
        /// Not asked for yet.
        case pending
        /// Asked for while a graceful shutdown drains (its build may still publish, and
        /// `container.shutdown` comes after it): written when the drain ends, and the shutdowns
        /// refused meanwhile are answered then, as the first one will be.
        case awaitingDrain(refused: [(waiter: OperationWaiter, error: ContainerError)])
        /// Written: by the step that began it, or by a close refused meanwhile, whichever came first.
        case traced
    }
    /// The generation: graph, values, failed nodes, attempts.
    var state: GenerationState
    var demands = Demands()
    /// The build of the current generation, launched or waiting to launch.
    var build: BuildState?
    /// A build a reset, reload or shutdown superseded, still running (its nodes finish, its
    /// values go to the teardown).
    var stopping: BuildState? {
        get { stoppingStorage.value }
        set { stoppingStorage = OutOfLine(newValue) }
    }
    /// ``stopping``, out of line: rarely there, so a coordinator keeps a word for it.
    private var stoppingStorage = OutOfLine<BuildState>(nil)
    var teardowns = Teardowns()
    var children = Children()
    /// Trace events of the transitions so far; the storage takes them after every event.
    var trace: TraceBuffer
    /// The change of the published snapshot the last event made, for the storage to apply.
    var snapshotChange: SnapshotChange?
    /// The newest snapshot of the generation, if one was published.
    private(set) var published: AppServices?
    /// Makes the tickets of builds (policy, tracer, redactor, tuning, scope parameters).
    let tickets: TicketFactory
    var policy: BuildPolicy { tickets.policy }
    /// The whole declared graph: the app's, with every scope (a scope instance's: its part).
    var declared: ServiceGraph
    /// The run times of each scope part, shared by its instances.
    var scopeRunTimes: [String: NodeRunTimes] = [:]
    var nextBuildID = 1
    var nextOperationID = 1
    /// The attempt the current events belong to: the build in flight's, the published one's,
    /// or the next.
    var attempt = 1
    /// The report of the last build that ended (for the status).
    var lastReport: BuildReport?
    /// For a scope instance: the app generation its app values come from.
    var appGeneration: Int?
    /// App values (a scope instance's) no value of this coordinator uses any more, to release
    /// to the app once the teardown in progress is over.
    var releasing: [AnyServiceBox] = []

    /// The scope instance this machine runs (`nil`: the app), named in its snapshots.
    var scopeInstance: String? { tickets.scopeInstance }

    /// A machine for `declared` (its app part is built here; a scope instance passes its part).
    init(declared: ServiceGraph, tickets: TicketFactory, runTimes: NodeRunTimes? = nil) {
        self.declared = declared
        self.tickets = tickets
        let graph = declared.appPart
        state = GenerationState(graph: graph, runTimes: runTimes)
        trace = TraceBuffer(isEnabled: tickets.tracer.isEnabled)
        for scope in declared.scopeNames {
            scopeRunTimes[scope] = NodeRunTimes(count: declared.scopeParts[scope]?.nodes.count ?? 0)
        }
    }

    /// The current generation.
    var generation: Int { state.generation }

    /// The graph of the current generation.
    var graph: ServiceGraph { state.graph }

    /// The published snapshot, when it holds every service `start()` asks for.
    var snapshot: AppServices? {
        guard let published, published.holdsEager else { return nil }
        return published
    }

    /// The slots `start()` asks for: the eager services (every service when no other policy is
    /// declared) and the app values they use.
    var eagerClosure: SlotSet { graph.eagerSlots }

    /// Whether every slot `start()` asks for has a value (an optional one: or cannot be built now).
    var eagerIsBuilt: Bool {
        let eager = eagerClosure
        if graph.hasOptionalServices {
            if case .built = inspect(eager, required: graph.eagerRequired, now: .zero) { return true }
            return false
        }
        if eager.count == graph.nodes.count { return state.values.count == graph.nodes.count }
        return eager.allSatisfy(state.hasValue)
    }

    /// The attempt the current phase's events belong to.
    var currentAttempt: BuildAttempt {
        BuildAttempt(
            generation: generation, attempt: build?.isLaunched == true ? build?.build.attempt ?? attempt : attempt)
    }

    // MARK: Callers

    /// A caller asks for the services of `key` (`start()`: `.eager`).
    ///
    /// It joins the demand of callers who asked the same; otherwise its closure decides: every
    /// node has a value (the snapshot at once), one is blocked (its failure at once), or the
    /// build builds what the closure lacks (joining the build in flight, or starting one). A
    /// caller whose task is already cancelled is answered without waiting: with the snapshot
    /// or the failure when there is one, otherwise `CancellationError`; it never starts or
    /// joins a build.
    ///
    /// - Parameters:
    ///   - isCancelled: whether the caller's task is cancelled, read in the critical section.
    ///   - now: time since the container was created, for the attempt budget.
    /// - Parameter given: for a scope instance, app values its core fetched and leased before
    ///   asking (the app's snapshot was ready): stored when no build is in flight and they are
    ///   missing, so the build needs no fetch; otherwise released.
    mutating func requested(
        _ key: Demands.Key, caller: Int, label: String, waiter: Waiter, priority: UInt8, isCancelled: Bool,
        now: Duration, given: AppValues? = nil, from provider: RunningNode = .none, closingAbove: Bool = false
    ) -> RequestAction {
        let key = resolved(key)
        if let given { take(given) }
        // A scope instance refuses too once a coordinator up its chain began to shut down,
        // before its own close order reaches it.
        if let refusal = refusal() ?? (closingAbove ? .closed(scopeInstance ?? "") : nil) {
            traceAnswer(label, key, found: .shutDown, result: .failure)
            return .answer(waiter, .failure(refusal))
        }
        if provider.ticket != nil, let node = waitedForBy(key, from: provider) {
            traceAnswer(label, key, found: .running, result: .failure)
            return .answer(waiter, .failure(.circularRequest(from: node, generation: generation)))
        }
        let entry = CallerRegistry<Waiter>.Entry(id: caller, label: label, waiter: waiter)
        if let index = demands.index(of: key) {
            recordJoined(label, key, found: .running)
            if isCancelled {
                record(.callerCancelled(caller: label))
                return .answer(waiter, .cancelled)
            }
            let raised = demands.park(entry, at: index, priority: priority)
            return .park(raise: raised ? raise(to: priority) : nil, start: Start())
        }
        // The whole closure, when the walk from the roots cannot decide alone.
        var closure: SlotSet?
        let required = graph.hasOptionalServices ? required(of: key) : nil
        let need: ClosureNeed
        if let walked = walk(key) {
            need = walked
        } else {
            let whole = self.closure(of: key)
            closure = whole
            need = inspect(whole, required: required ?? whole, retrying: retrying(for: key), now: now)
        }
        switch need {
        case .built:
            if graph.hasOptionalServices, let closure {
                for slot in closure.slots
                where slot < graph.builtCount && graph.nodes[slot].isOptional && !state.hasValue(slot)
                    && state.absences[slot] == nil
                {
                    state.noteAbsence(of: slot, "\(graph.nodes[slot].name) skipped: a service it needs failed")
                }
            }
            // Published first: a `ready` join follows the snapshot it receives in the trace.
            let snapshot = publishedHolding(now: now)
            traceAnswer(label, key, found: .ready, result: .snapshot)
            return .answer(waiter, .snapshot(snapshot))
        case .blocked(let error, let found):
            traceAnswer(label, key, found: found, result: .failure)
            return .answer(waiter, .failure(error))
        case .needed(let missing, let unsettled, let failed, let absent):
            // Optional nodes that cannot be built now are not waited for.
            for slot in absent where graph.nodes[slot].isOptional && state.absences[slot] == nil {
                state.noteAbsence(of: slot, "\(graph.nodes[slot].name) skipped: a service it needs failed")
            }
            let found: TraceEvent.CallerState = build == nil ? .idle : .running
            if isCancelled {
                recordJoined(label, key, found: found)
                record(.callerCancelled(caller: label))
                return .answer(waiter, .cancelled)
            }
            // The caller belongs to the build it joins, or to the one it is about to start.
            recordJoined(
                label, key, found: found,
                build: build?.build ?? BuildAttempt(generation: generation, attempt: state.builds + 1))
            var demand = Demands.Demand(key: key, required: required, priority: priority)
            demand.failed = failed
            if failed { build?.failedARequest = true }
            demand.callers.park(entry)
            // Traced, the build reports the closure's nodes it reuses: the whole closure's.
            let reused = trace.isEnabled ? closure ?? self.closure(of: key) : nil
            let start = add(missing, reusing: reused, for: label, priority: priority, fromCaller: true, now: now)
            if missing.isEmpty && unsettled.isEmpty {
                // Every node it needs has settled in the build in flight, not all with a value.
                record(.callerResumed(caller: label, result: .failure))
                return .answer(waiter, .failure(failure(of: requiredSlots(of: demand), report: report(now: now))))
            }
            _ = demands.add(demand, waitingFor: missing, unsettled)
            return .park(raise: raise(to: priority), start: start)
        }
    }

    /// App values of a scope instance: the external slots of its part, their boxes (leased), and
    /// the app generation they come from.
    struct AppValues {
        let values: [(slot: Int, box: AnyServiceBox)]
        let generation: Int
        /// Optional app services the app snapshot lacks, with the reason it gives.
        var absent: [(slot: Int, reason: String)] = []
        /// For values a request leased before its own step: the instance's generation when it
        /// began (the values are for that generation only).
        var forGeneration: Int?
    }

    /// `given`, when app values a request leased before its step are still for this generation;
    /// otherwise `nil`, the values in `stale`. Those must go back to the app at once: the parent
    /// retired one of them (or reloaded this instance's part) after the lease and superseded this
    /// instance, and its teardown waits for them.
    func current(_ given: AppValues?, stale: inout AppValues?) -> AppValues? {
        guard let given, given.forGeneration ?? generation != generation else { return given }
        stale = given
        return nil
    }

    /// Stores `given` app values where the generation lacks them and no build is in flight (which
    /// fetches its own); the others go back to the app with the next lifecycle.
    private mutating func take(_ given: AppValues) {
        guard build == nil, stopping == nil, case .open = phase else {
            releasing += given.values.map(\.box)
            return
        }
        for (slot, box) in given.values {
            if state.hasValue(slot) {
                releasing.append(box)
            } else {
                state.store(box, at: slot)
                appGeneration = given.generation
            }
        }
    }

    /// A parked caller's task was cancelled: it stops waiting at once; the build goes on.
    mutating func waiterCancelled(caller: Int) -> CancelAction {
        guard let entry = demands.remove(caller: caller) else { return .none }
        record(.callerCancelled(caller: entry.label))
        return .resume(entry.waiter)
    }

    /// A parked caller's task was raised to `priority` (someone awaits it): so is the build.
    mutating func callerEscalated(priority: UInt8) -> EscalationAction {
        guard !demands.isEmpty else { return .none }
        demands.raise(to: priority)
        guard let raise = raise(to: priority) else { return .none }
        return .escalate(raise.ticket, priority: raise.priority)
    }

    /// Raises the build to `priority`: the ticket to raise, when it is launched and was lower.
    private mutating func raise(to priority: UInt8) -> (ticket: BuildTicket, priority: UInt8)? {
        guard let current = build?.priority, priority > current else { return nil }
        build!.priority = priority
        guard let ticket = build!.ticket else { return nil }
        return (ticket, priority)
    }

    /// The published snapshot, made anew first when values were added since it was made. Its
    /// report is the build's that made it: the one in flight so far (a request answered while
    /// the build goes on), else the last one.
    mutating func publishedHolding(build: BuildAttempt? = nil, now: Duration) -> AppServices {
        if let published, published.values.count == state.values.count,
            published.absences.count == state.absences.count, published.absenceVersion == state.absenceVersion
        {
            return published
        }
        var absences: [String: String] = [:]
        for (slot, reason) in state.absences { absences[graph.nodes[slot].name] = reason }
        let snapshot = AppServices(
            generation: generation,
            report: publishedReport(now: now) ?? lastReport ?? emptyReport,
            layout: graph.layout, values: state.values,
            scope: scopeInstance, appGeneration: appGeneration, holdsEager: eagerIsBuilt, absences: absences,
            absenceVersion: state.absenceVersion)
        published = snapshot
        snapshotChange = .publish(snapshot)
        record(.snapshotPublished(services: snapshot.values.count), build)
        return snapshot
    }

    /// Clears the published snapshot (a new generation, or a shutdown).
    mutating func clearPublished() {
        published = nil
        snapshotChange = .clear
    }

    /// Clears the published snapshot, if any, for the generation that began, and records the
    /// values it carried over (for the observers, even when nothing was published since the
    /// last generation: they may still show that one's values).
    mutating func clearForNewGeneration() {
        published = nil
        snapshotChange = .newGeneration(
            carried: AppServices(
                generation: generation, report: emptyReport, layout: graph.layout, values: state.values,
                scope: scopeInstance, appGeneration: appGeneration, holdsEager: false))
    }

    /// The report of a generation none of whose builds ended yet.
    private var emptyReport: BuildReport {
        BuildReport(
            generation: generation, attempt: attempt, nodes: [], startedAt: .zero, endedAt: .zero, wasCancelled: false)
    }

    /// Why a call is refused, if it is: once shut down (or draining), every call is.
    func refusal() -> ContainerError? {
        switch phase {
        case .open: nil
        case .draining: .shutDown(generation: generation)
        case .shutDown(let error, _): error
        }
    }

    mutating func takeOperationID() -> Int {
        defer { nextOperationID += 1 }
        return nextOperationID
    }
}
