/// The coordinator's state machine (DESIGN §2): a plain value, no locks, no concurrency.
///
/// Each event method mutates the state and returns ``Effects`` that the storage carries
/// out after releasing its lock: resume waiters, launch or cancel a build, run teardowns,
/// emit trace events. Generic over the waiter, reset-waiter and build-handle types so that
/// tests can drive it with plain integers.
///
///     idle ──start──▶ running ──success──▶ ready
///       ▲                │ transient            │
///       └────────────────┘                      │
///     running ──permanent──▶ failed (sticky)    │
///     any ──reset──▶ idle (new generation; the old build is cancelled, its values torn down)
///     any ──shutdown──▶ shutDown
///
/// Besides the state, one **job** is in flight at most: a build or a teardown. A new
/// generation's build waits until the previous job has finished (rule 8: no overlap).
struct CoordinatorStateMachine<Waiter, ResetWaiter, BuildHandle> {
    enum State {
        case idle
        case running(RunningBuild)
        case ready(AppServices)
        case failed(ContainerError)
        case shutDown
    }

    struct RunningBuild {
        let id: Int
        let attempt: Int
        /// False while the build waits for a teardown job to finish.
        var launched: Bool
        var waiters: [Int: (label: String, waiter: Waiter)]
    }

    enum Job {
        case build(id: Int, handle: BuildHandle?)
        case teardown
    }

    /// What a waiting caller receives.
    enum CallerOutcome {
        case snapshot(AppServices)
        case failure(ContainerError)
        case cancelled
    }

    /// A build to launch: the storage creates its task in the same critical section.
    struct BuildTicket {
        let id: Int
        let generation: Int
        let attempt: Int
        let kept: [Int: AnyServiceBox]
        /// Provider runs of each node in the generation's earlier attempts.
        let earlierRuns: [Int: Int]
    }

    /// Side effects to carry out, in this order, after the lock is released.
    struct Effects {
        /// Whether anyone listens to the trace; when not, no events are built.
        let tracing: Bool
        var events: [(kind: TraceEvent.Kind, generation: Int, attempt: Int)] = []
        var snapshotChange: SnapshotChange?
        var resumptions: [(waiter: Waiter, outcome: CallerOutcome)] = []
        var launch: BuildTicket?
        var cancel: BuildHandle?
        /// Values to tear down, in this order (reverse dependency order).
        var tearDown: [AnyServiceBox]?
        var completedResets: [(waiter: ResetWaiter, result: Result<ResetReport, ContainerError>)] = []

        /// Records a trace event, when anyone listens.
        mutating func trace(_ event: @autoclosure () -> (kind: TraceEvent.Kind, generation: Int, attempt: Int)) {
            if tracing { events.append(event()) }
        }
    }

    enum SnapshotChange {
        case publish(AppServices)
        case clear
    }

    private struct PendingReset {
        let waiter: ResetWaiter
        /// The values this reset retired (and those of a build it superseded): only their
        /// teardowns go into its report, not other resets' or a permanent failure's.
        var retired: Set<ObjectIdentifier>
        let from: Int
        let to: Int
        let invalidated: [String]
        let carriedOver: [String]
        var tornDown: [ResetReport.Teardown] = []
    }

    let graph: ServiceGraph
    /// Whether trace events are wanted (see ``Effects/trace(_:)``).
    let tracing: Bool
    private(set) var state: State = .idle
    private(set) var generation = 1
    private(set) var nextAttempt = 1
    /// Values of the current generation kept for the next attempt or carried over by a reset, by slot.
    private(set) var pool: [Int: AnyServiceBox] = [:]
    /// Provider runs of each node in the current generation's finished attempts, by slot.
    private var runsInGeneration: [Int: Int] = [:]
    private(set) var job: Job?
    private var teardownQueue: [AnyServiceBox] = []
    private var pendingResets: [PendingReset] = []
    /// Callers that have an id but have not registered their continuation yet.
    private var registering = Set<Int>()
    /// Callers cancelled between getting an id and registering.
    private var cancelledEarly = Set<Int>()
    private var nextCallerID = 1
    private var nextBuildID = 1

    init(graph: ServiceGraph, tracing: Bool = true) {
        self.graph = graph
        self.tracing = tracing
    }

    /// The published snapshot, when ready.
    var snapshot: AppServices? {
        if case .ready(let snapshot) = state { return snapshot }
        return nil
    }

    /// The attempt events of the current state belong to.
    private var currentAttempt: Int {
        switch state {
        case .running(let build): build.attempt
        case .ready(let snapshot): snapshot.report.attempt
        case .failed(let error): error.report?.attempt ?? nextAttempt
        case .idle, .shutDown: nextAttempt
        }
    }

    // MARK: Callers

    /// Gives a caller an id before it suspends, so that its cancellation can be recognised
    /// even if it arrives before ``startRequested(caller:label:waiter:)``.
    mutating func allocateCaller() -> Int {
        let id = nextCallerID
        nextCallerID += 1
        registering.insert(id)
        return id
    }

    mutating func startRequested(caller: Int, label: String, waiter: Waiter) -> Effects {
        var effects = Effects(tracing: tracing)
        registering.remove(caller)
        if cancelledEarly.remove(caller) != nil {
            effects.trace((.callerJoined(caller: label, state: foundState), generation, currentAttempt))
            effects.trace((.callerCancelled(caller: label), generation, currentAttempt))
            effects.resumptions.append((waiter, .cancelled))
            return effects
        }
        switch state {
        case .ready(let snapshot):
            join(label, found: .ready, result: .snapshot, into: &effects)
            effects.resumptions.append((waiter, .snapshot(snapshot)))
        case .failed(let error):
            join(label, found: .failed, result: .failure, into: &effects)
            effects.resumptions.append((waiter, .failure(error)))
        case .shutDown:
            join(label, found: .shutDown, result: .failure, into: &effects)
            effects.resumptions.append((waiter, .failure(.shutDown(generation: generation))))
        case .running(var build):
            state = .idle  // release the enum's copy so the dictionary grows in place (O(1), not O(n))
            build.waiters[caller] = (label, waiter)
            state = .running(build)
            effects.trace((.callerJoined(caller: label, state: .running), generation, build.attempt))
        case .idle:
            let build = RunningBuild(
                id: nextBuildID, attempt: nextAttempt, launched: false, waiters: [caller: (label, waiter)])
            nextBuildID += 1
            state = .running(build)
            effects.trace((.callerJoined(caller: label, state: .idle), generation, build.attempt))
            continueLifecycle(&effects)
        }
        return effects
    }

    /// The state a caller finds, as the trace names it.
    private var foundState: CallerState {
        switch state {
        case .idle: .idle
        case .running: .running
        case .ready: .ready
        case .failed: .failed
        case .shutDown: .shutDown
        }
    }

    private func join(_ label: String, found: CallerState, result: CallerResult, into effects: inout Effects) {
        effects.trace((.callerJoined(caller: label, state: found), generation, currentAttempt))
        effects.trace((.callerResumed(caller: label, result: result), generation, currentAttempt))
    }

    mutating func waiterCancelled(caller: Int) -> Effects {
        var effects = Effects(tracing: tracing)
        if registering.contains(caller) {
            // Cancelled before it registered: startRequested resumes it at once.
            cancelledEarly.insert(caller)
            return effects
        }
        guard case .running(var build) = state, build.waiters[caller] != nil else {
            return effects  // already resumed: nothing to do, exactly once
        }
        state = .idle  // release the enum's copy so the dictionary shrinks in place
        let entry = build.waiters.removeValue(forKey: caller)!
        state = .running(build)
        effects.trace((.callerCancelled(caller: entry.label), generation, build.attempt))
        effects.resumptions.append((entry.waiter, .cancelled))
        return effects
    }

    // MARK: Builds

    /// Records the handle of the build task created for `ticket`.
    mutating func buildLaunched(id: Int, handle: BuildHandle) {
        guard case .build(id, .none)? = job else {
            preconditionFailure("buildLaunched(\(id)) in job \(String(describing: job)), state \(state)")
        }
        job = .build(id: id, handle: handle)
    }

    mutating func buildFinished(id: Int, result: BuildResult) -> Effects {
        guard case .build(id, _)? = job else {
            preconditionFailure("buildFinished(\(id)) in job \(String(describing: job)), state \(state)")
        }
        job = nil
        var effects = Effects(tracing: tracing)
        let report = result.report
        guard case .running(let build) = state, build.id == id else {
            // (Its runs belonged to a generation that is gone: not counted.)
            // Superseded by a reset or shutdown: it never publishes, and its values are retired.
            effects.trace((.buildCancelled, report.generation, report.attempt))
            teardownQueue.append(contentsOf: result.built.values)
            // Its values belong to the resets that superseded it (those still pending).
            let late = Set(result.built.values.map(ObjectIdentifier.init))
            for index in pendingResets.indices { pendingResets[index].retired.formUnion(late) }
            continueLifecycle(&effects)
            return effects
        }
        for (slot, node) in report.nodes.enumerated() where node.runs > 0 {
            runsInGeneration[slot, default: 0] += node.runs
        }
        if report.succeeded {
            pool.merge(result.built) { _, new in new }
            let values = ContiguousArray(result.values.map { $0! })
            let snapshot = AppServices(generation: generation, report: report, layout: graph.layout, values: values)
            state = .ready(snapshot)
            effects.snapshotChange = .publish(snapshot)
            effects.trace((.snapshotPublished(services: values.count), generation, build.attempt))
            resumeAll(build, with: .snapshot(snapshot), result: .snapshot, into: &effects)
        } else {
            let error = ContainerError.buildFailed(report)
            let failure = report.failure ?? .transient
            effects.trace(
                (.buildFailed(failure: failure, roots: report.failedNodes), generation, build.attempt))
            if failure == .permanent {
                // Nothing can use this generation's values any more: retire them now (§5).
                state = .failed(error)
                teardownQueue.append(contentsOf: result.built.values)
                for (slot, box) in pool where box.builtInGeneration == generation {
                    teardownQueue.append(box)
                    pool[slot] = nil
                }
            } else {
                // Keep what succeeded: the next attempt reuses it instead of running it again (rule 3).
                state = .idle
                pool.merge(result.built) { _, new in new }
                nextAttempt = build.attempt + 1
            }
            resumeAll(build, with: .failure(error), result: .failure, into: &effects)
        }
        continueLifecycle(&effects)
        return effects
    }

    private func resumeAll(
        _ build: RunningBuild, with outcome: CallerOutcome, result: CallerResult, into effects: inout Effects
    ) {
        effects.resumptions.reserveCapacity(build.waiters.count)
        // In the order the callers arrived: the trace reads the same way every time, and the
        // runtime resumes tasks in the order it created them.
        for (_, entry) in build.waiters.sorted(by: { $0.key < $1.key }) {
            effects.trace((.callerResumed(caller: entry.label, result: result), generation, build.attempt))
            effects.resumptions.append((entry.waiter, outcome))
        }
    }

    // MARK: Teardown, reset, shutdown

    /// A teardown job ended; `records` pair each torn-down value's identity with its result.
    mutating func teardownFinished(_ records: [(box: ObjectIdentifier, record: ResetReport.Teardown)]) -> Effects {
        guard case .teardown? = job else {
            preconditionFailure("teardownFinished in job \(String(describing: job)), state \(state)")
        }
        job = nil
        // A reset reports the teardowns that started after it was requested, not earlier ones.
        for index in pendingResets.indices {
            let owned = pendingResets[index].retired
            pendingResets[index].tornDown.append(contentsOf: records.filter { owned.contains($0.box) }.map(\.record))
        }
        var effects = Effects(tracing: tracing)
        continueLifecycle(&effects)
        return effects
    }

    /// Starts a new generation; `invalidating` are the slots to rebuild (`nil`: all of them).
    mutating func resetRequested(invalidating: Set<Int>?, waiter: ResetWaiter) -> Effects {
        var effects = Effects(tracing: tracing)
        if case .shutDown = state {
            effects.completedResets.append((waiter, .failure(.shutDown(generation: generation))))
            return effects
        }
        let from = generation
        generation += 1
        runsInGeneration = [:]
        let retired = invalidating.map { graph.closure(ofDependentsOf: $0) } ?? Set(graph.nodes.indices)
        var retiredBoxes = Set<ObjectIdentifier>()
        for (slot, box) in pool where retired.contains(slot) {
            teardownQueue.append(box)
            retiredBoxes.insert(ObjectIdentifier(box))
            pool[slot] = nil
        }
        effects.trace(
            (
                .generationReset(from: from, to: generation, invalidated: invalidating.map { _ in names(of: retired) }),
                generation, 1
            ))
        supersede(with: .superseded(generation: from, by: generation), result: .superseded, into: &effects)
        nextAttempt = 1
        state = .idle
        pendingResets.append(
            PendingReset(
                waiter: waiter, retired: retiredBoxes, from: from, to: generation, invalidated: names(of: retired),
                carriedOver: names(of: Set(pool.keys))))
        continueLifecycle(&effects)
        return effects
    }

    mutating func shutdownRequested(waiter: ResetWaiter) -> Effects {
        var effects = Effects(tracing: tracing)
        if case .shutDown = state {
            effects.completedResets.append((waiter, .failure(.shutDown(generation: generation))))
            return effects
        }
        teardownQueue.append(contentsOf: pool.values)
        let retiredBoxes = Set(pool.values.map(ObjectIdentifier.init))
        pool = [:]
        effects.trace((.containerShutdown, generation, currentAttempt))
        supersede(with: .shutDown(generation: generation), result: .failure, into: &effects)
        state = .shutDown
        pendingResets.append(
            PendingReset(
                waiter: waiter, retired: retiredBoxes, from: generation, to: generation,
                invalidated: graph.serviceNames, carriedOver: []))
        continueLifecycle(&effects)
        return effects
    }

    /// Ends the current state for a reset or shutdown: waiters get `error`, a running build is cancelled.
    private mutating func supersede(with error: ContainerError, result: CallerResult, into effects: inout Effects) {
        switch state {
        case .running(let build):
            resumeAll(build, with: .failure(error), result: result, into: &effects)
            if case .build(build.id, let handle?)? = job { effects.cancel = handle }
        case .ready:
            effects.snapshotChange = .clear
        case .idle, .failed, .shutDown:
            break
        }
    }

    /// With no job in flight: tear down what is queued, else finish pending resets and
    /// launch a build that is waiting.
    private mutating func continueLifecycle(_ effects: inout Effects) {
        guard job == nil else { return }
        if !teardownQueue.isEmpty {
            // Dependents before their dependencies (§5).
            let rank = graph.topologicalRank
            effects.tearDown = teardownQueue.sorted { rank[$0.slot] > rank[$1.slot] }
            teardownQueue = []
            job = .teardown
            return
        }
        for reset in pendingResets {
            effects.completedResets.append(
                (
                    reset.waiter,
                    .success(
                        ResetReport(
                            from: reset.from, to: reset.to, invalidated: reset.invalidated,
                            carriedOver: reset.carriedOver,
                            tornDown: reset.tornDown))
                ))
        }
        pendingResets = []
        if case .running(var build) = state, !build.launched {
            build.launched = true
            state = .running(build)
            job = .build(id: build.id, handle: nil)
            effects.trace((.buildStarted, generation, build.attempt))
            effects.launch = BuildTicket(
                id: build.id, generation: generation, attempt: build.attempt, kept: pool,
                earlierRuns: runsInGeneration)
        }
    }

    private func names(of slots: Set<Int>) -> [String] {
        slots.sorted().map { graph.nodes[$0].name }
    }
}

extension CoordinatorStateMachine.Job: CustomStringConvertible {
    var description: String {
        switch self {
        case .build(let id, _): "build(\(id))"
        case .teardown: "teardown"
        }
    }
}
