/// A build's life: what a request adds to it, its launch, each node's end (its end is in
/// `+BuildEnd`; the jobs
/// between builds are in `+Lifecycle`, optional services' absences in `+Absence`, the app
/// values a scope instance's build fetches in `+AppValues`, the answers in `+Answers`).
extension CoordinatorStateMachine {
    // MARK: Growing the build

    /// Adds `missing` (in topological order) to the build of the generation, making the build
    /// if there is none, and starts what can start: ready nodes of a launched build at once, or
    /// the build itself when no job stands in its way. `closure` is the request's, when traced
    /// (its nodes with a value are traced as reused by the build), `label` its caller's (traced
    /// as whom the nodes were added for). `fromCaller`: the request's caller may start the build
    /// on its own thread.
    mutating func add(
        _ missing: [Int], reusing closure: SlotSet?, for label: String, priority: UInt8, fromCaller: Bool,
        now: Duration
    ) -> Start {
        guard !missing.isEmpty else { return Start() }
        // Taken out (moved, not copied), so the build's arrays are changed in place: here and in
        // most events below that change the build (a node's success changes it where it is).
        var current = build.take() ?? newBuild(priority: priority, members: missing.count)
        var ready: [Int] = []
        var fetch: [Int] = []
        var added: [String] = []
        for slot in missing {
            if slot >= graph.builtCount {
                fetch.append(slot)
                continue
            }
            guard !current.isMember(slot) else { continue }
            if trace.isEnabled { added.append(graph.nodes[slot].name) }
            let waiting = waitingCount(of: slot, in: current)
            current.add(slot, waitingFor: waiting)
            if waiting == 0 { ready.append(slot) }
            if graph.hasOptionalServices && graph.nodes[slot].isOptional {
                // Members that joined while it was absent did not count it: those not started
                // yet wait for it now (its end decrements their count), the others run without.
                for dependent in graph.dependents[slot]
                where current.isMember(dependent) && current.records[dependent].status == .pending
                    && current.records[waiting: dependent] > 0
                {
                    current.records[waiting: dependent] += 1
                }
            }
        }
        guard current.isLaunched else {
            if !ready.isEmpty { current.ready += ready }
            if !fetch.isEmpty { current.toFetch += fetch }
            if trace.isEnabled, let closure {
                current.reused = current.reused?.union(closure) ?? closure
                if !added.isEmpty { current.added.append((added, label)) }
            }
            build = current
            // A build waits for the teardown of what a reset retired and for the build it
            // superseded (no overlap); otherwise it launches now.
            guard stopping == nil && !teardowns.hasWork else { return Start() }
            return launch(fromCaller: fromCaller, now: now, caller: Caller(closure: closure, priority: priority))
        }
        var start = Start()
        if !added.isEmpty { record(.buildAdded(nodes: added, caller: label), current.build) }
        if let closure { traceReused(closure, in: &current) }
        if current.awaitingApp || !fetch.isEmpty {
            current.ready += ready
        } else if !current.stopped && !ready.isEmpty {
            start.launch = Launch(
                ticket: current.ticket!,
                orders: orders(starting: ready, in: &current, caller: Caller(closure: closure, priority: priority)))
        }
        if !fetch.isEmpty {
            if current.awaitingApp {
                current.toFetch += fetch
            } else {
                start.fetch = Fetch(ticket: current.ticket!, slots: current.beginFetch(fetch), startsHere: false)
            }
        }
        build = current
        return start
    }

    /// A build of the generation, not launched, with room for `members` members.
    private mutating func newBuild(priority: UInt8, members: Int) -> BuildState {
        defer { nextBuildID += 1 }
        return BuildState(
            id: nextBuildID, build: BuildAttempt(generation: generation, attempt: state.beginBuild()),
            nodeCount: graph.nodes.count, priority: priority, members: members)
    }

    /// Launches the build waiting for its turn: its ticket, `build.started`, the nodes that can
    /// start (or the app values it must fetch first); `caller`: the request launching it.
    mutating func launch(fromCaller: Bool, now: Duration, caller: Caller? = nil) -> Start {
        guard var current = build.take() else { return Start() }
        guard !current.isLaunched else {
            build = current
            return Start()
        }
        let ticket = tickets.ticket(
            id: current.id, build: current.build, graph: graph, values: state.values, runTimes: state.runTimes,
            priority: current.priority)
        current.ticket = ticket
        current.launchedAt = now
        attempt = current.build.attempt
        record(.buildStarted, current.build)
        for (nodes, caller) in current.added { record(.buildAdded(nodes: nodes, caller: caller), current.build) }
        current.added = []
        if let closure = current.reused {
            current.reused = nil
            traceReused(closure, in: &current)
        }
        let startsHere = fromCaller && startsOnCallersThread(current)
        var start = Start()
        if !current.toFetch.isEmpty {
            start.fetch = Fetch(ticket: ticket, slots: current.beginFetch(), startsHere: startsHere)
        } else {
            let ready = current.ready
            current.ready = []
            start.launch = Launch(
                ticket: ticket, orders: orders(starting: ready, in: &current, caller: caller), startsHere: startsHere)
        }
        build = current
        return start
    }

    /// Whether `build` is few nodes that were all quick when they last ran (at most the inline
    /// budget in all): its requesting caller then starts it on its own thread, held up no longer
    /// than the budget, and no thread is woken for it.
    private func startsOnCallersThread(_ build: BuildState) -> Bool {
        let budget = tickets.tuning.budget(for: policy)
        guard budget > 0 else { return false }
        return state.runTimes.total(of: build.members, isAtMost: budget)
    }

    /// Traces the nodes of `closure` that already have a value as reused (once per build, in
    /// graph order), unless the build made them.
    private mutating func traceReused(_ closure: SlotSet, in current: inout BuildState) {
        guard trace.isEnabled, !state.values.isEmpty else { return }
        var reported = current.reused ?? SlotSet(capacity: graph.nodes.count)
        for slot in graph.topologicalOrder
        where slot < graph.builtCount && closure.contains(slot) && state.hasValue(slot) && !current.isMember(slot) {
            let name = graph.nodes[slot].name
            if reported.insert(slot) { record(.nodeReused(node: name), current.build) }
        }
        current.reused = reported
    }

    /// A request not in the book yet (it is added once its nodes are): what it needs, at what priority.
    struct Caller {
        /// Its closure, when the request computed it (`nil`: the nodes it launches are its own).
        let closure: SlotSet?
        let priority: UInt8

        func needs(_ slot: Int) -> Bool { closure?.contains(slot) ?? true }
    }

    /// The highest priority of the demands that need `slot`: those waiting for it, or for a
    /// member of the build above it (a joining request waits for the first members it meets).
    /// Stops at `ceiling`, the build's.
    private static func waitingPriority(
        of slot: Int, in current: BuildState, graph: ServiceGraph, demands: Demands, ceiling: UInt8
    ) -> UInt8 {
        var highest = demands.priority(waitingFor: slot)
        guard highest < ceiling else { return highest }
        var seen = Set<Int>()
        var stack = graph.dependents[slot].filter { current.isMember($0) }
        while let member = stack.popLast() {
            guard seen.insert(member).inserted else { continue }
            highest = max(highest, demands.priority(waitingFor: member))
            if highest >= ceiling { return highest }
            for dependent in graph.dependents[member] where current.isMember(dependent) { stack.append(dependent) }
        }
        return highest
    }

    /// The launches of `slots` (whose dependencies all have values), counted as running;
    /// `caller`: the request that adds them, when it is not in the book yet.
    func orders(starting slots: [Int], in current: inout BuildState, caller: Caller? = nil) -> WorkerOrders {
        var launches: [NodeLaunch] = []
        launches.reserveCapacity(slots.count)
        for slot in slots { launches.append(launchOf(slot, in: current, caller: caller)) }
        current.unstarted -= slots.count
        current.running += slots.count
        return WorkerOrders(launches: launches, unstarted: current.unstarted)
    }

    /// The launch of `slot`, at its priority: its own (declared, or background for a deferred
    /// service) raised to the highest of the requests waiting for it (`caller` too, when it
    /// needs it); the build's when neither says (see ``ServicePriority``).
    func launchOf(_ slot: Int, in current: BuildState, caller: Caller? = nil) -> NodeLaunch {
        Self.launch(slot, in: current, state: state, demands: demands, caller: caller)
    }

    /// ``launchOf(_:in:caller:)`` from the parts of the machine it reads, for a caller that
    /// changes the build in place meanwhile (a node's end).
    private static func launch(
        _ slot: Int, in current: BuildState, state: GenerationState, demands: Demands, caller: Caller? = nil
    ) -> NodeLaunch {
        let graph = state.graph
        let floors = graph.priorityFloors
        var priority = floors.isEmpty ? 0 : floors[slot]
        if let caller, caller.priority > priority, caller.needs(slot) { priority = caller.priority }
        if priority < current.priority && !demands.isEmpty {
            priority = max(
                priority,
                waitingPriority(of: slot, in: current, graph: graph, demands: demands, ceiling: current.priority))
        }
        return NodeLaunch(
            slot: slot, earlierRuns: state.runs(of: slot), priority: priority == 0 ? current.priority : priority)
    }

    // MARK: Nodes ending

    /// A node of build `id` ended with `result`: its value is kept, the dependents it was the
    /// last missing dependency of start (in the same worker), the requests it completes are
    /// answered; a failure of a fail-fast build cancels the rest.
    ///
    /// - Parameter orders: the worker's orders, emptied: the launches are appended to it (a
    ///   buffer the worker reuses, so a node's end allocates nothing for them).
    mutating func nodeFinished(
        build id: Int, _ result: NodeResult, launching orders: inout WorkerOrders, now: Duration
    ) -> NodeAction {
        orders.unstarted = 0
        guard build?.id == id else { return stoppingNodeFinished(result, now: now) }
        var cancel: BuildTicket?
        let completed: [Demands.Demand]
        if result.status == .succeeded {
            completed = nodeSucceeded(result, launching: &orders)
        } else {
            (completed, cancel) = nodeEndedWithoutValue(result, launching: &orders, now: now)
        }
        orders.unstarted = build!.unstarted
        guard build!.isOver else {
            let resume = completed.isEmpty ? [] : answer(completed, now: now)
            return NodeAction(resume: resume, cancel: cancel, then: nil)
        }
        let (resume, lifecycle) = endBuild(answering: completed, now: now)
        return NodeAction(resume: resume, cancel: cancel, then: lifecycle)
    }

    /// A node of the build in flight succeeded: its value is kept, and the dependents it was the
    /// last missing dependency of start. Returns the requests it completes.
    ///
    /// The build is changed where it is (`build!`, beside the generation and the demands): moved
    /// out and back, as the rarer ends do, it would be copied twice per node.
    private mutating func nodeSucceeded(
        _ result: NodeResult, launching orders: inout WorkerOrders
    ) -> [Demands.Demand] {
        let slot = result.slot
        // Names are read only when traced (a node's object is cold in a large graph).
        let nodes = graph.nodes
        let attempt = build!.build
        record(.nodeSucceeded(node: nodes[slot].name, duration: result.endedAt - result.startedAt), attempt)
        if let box = result.box { state.store(box, at: slot) }
        let completed = demands.settled(slot, failed: false)
        Self.settle(result, in: &build!, state: state, demands: demands, launching: &orders)
        return completed
    }

    /// The build's side of a node that succeeded: its record and value, and the launches of the
    /// members it was the last missing dependency of (a settled member waits for nothing: it is
    /// not started again).
    private static func settle(
        _ result: NodeResult, in current: inout BuildState, state: GenerationState, demands: Demands,
        launching orders: inout WorkerOrders
    ) {
        let slot = result.slot
        current.recordEnd(result)
        if let box = result.box { current.ticket?.info.values.add(box, at: slot) }
        for dependent in state.graph.dependents[slot] where current.isMember(dependent) {
            if current.dependencyArrived(for: dependent) && !current.stopped {
                orders.launches.append(launch(dependent, in: current, state: state, demands: demands))
                current.unstarted -= 1
                current.running += 1
            }
        }
    }

    /// A node of the build in flight failed or was cancelled. Returns the requests it completes
    /// (fails), and the build's ticket when a fail-fast build stops.
    private mutating func nodeEndedWithoutValue(
        _ result: NodeResult, launching orders: inout WorkerOrders, now: Duration
    ) -> (completed: [Demands.Demand], cancel: BuildTicket?) {
        guard var current = build.take() else { preconditionFailure("node \(result.slot) ended for no build") }
        let slot = result.slot
        // Names are read only when traced (a node's object is cold in a large graph).
        let nodes = graph.nodes
        current.recordEnd(result)
        // Runs are read by a later run of the node in this generation (a success is not counted:
        // the node is not run again in it).
        state.countRuns(result.runs, of: slot)
        var completed: [Demands.Demand] = []
        var cancel: BuildTicket?
        switch result.status {
        case .failed:
            guard let failure = result.failure else { preconditionFailure("a failed run carries its failure") }
            current.records.failed(slot, failure)
            record(
                .nodeFailed(
                    node: nodes[slot].name, failure: failure.kind, error: failure.message,
                    optional: nodes[slot].isOptional),
                current.build)
            completed = demands.settled(slot, failed: true)
            if graph.hasOptionalServices {
                if nodes[slot].isOptional { state.noteAbsence(of: slot, "\(nodes[slot].name) failed: \(failure)") }
                settleAbsence(from: slot, in: &current, launching: &orders, completed: &completed, now: now)
            }
            let failsARequest =
                !graph.hasOptionalServices
                || completed.contains { $0.requires(slot) }
                || demands.demands.contains { $0.requires(slot) }
            if failsARequest { current.failedARequest = true }
            if policy.failureMode == .failFast && !current.stopped && failsARequest {
                current.stopped = true
                cancel = current.ticket
            }
        case .cancelledWhileRunning:
            record(.nodeCancelled(node: nodes[slot].name, phase: .whileRunning), current.build)
            completed = demands.settled(slot, failed: true)
        case .cancelledBeforeStart:
            record(.nodeCancelled(node: nodes[slot].name, phase: .beforeStart), current.build)
            completed = demands.settled(slot, failed: true)
        case .succeeded, .pending, .reused, .skipped:
            preconditionFailure("a node run cannot end \(result.status) without a value")
        }
        build = consume current
        return (completed, cancel)
    }

    /// A node of a superseded build ended: its value goes to the teardown (reported by the
    /// operation that superseded the build); the build ends once its last node did.
    private mutating func stoppingNodeFinished(_ result: NodeResult, now: Duration) -> NodeAction {
        guard var old = stopping.take(), case .some(let owner) = old.supersededBy else {
            preconditionFailure("node \(result.slot) ended for a build that is not in flight")
        }
        let name = old.records.isRecorded(result.slot) ? nodeName(result.slot, of: old) : ""
        old.recordEnd(result)
        switch result.status {
        case .succeeded:
            record(.nodeSucceeded(node: name, duration: result.endedAt - result.startedAt), old.build)
            if let box = result.box {
                if let slot = carriedSlot(for: result.slot, of: old) {
                    state.store(box, at: slot)
                    if let owner { teardowns.noteCarried(graph.nodes[slot].name, by: owner) }
                } else {
                    teardowns.enqueue([box], owner: owner)
                }
            }
        case .failed:
            if let failure = result.failure {
                old.records.failed(result.slot, failure)
                let optional = (old.ticket?.graph.nodes ?? graph.nodes)[result.slot].isOptional
                record(
                    .nodeFailed(node: name, failure: failure.kind, error: failure.message, optional: optional),
                    old.build)
            }
        case .cancelledWhileRunning: record(.nodeCancelled(node: name, phase: .whileRunning), old.build)
        case .cancelledBeforeStart: record(.nodeCancelled(node: name, phase: .beforeStart), old.build)
        case .pending, .reused, .skipped: preconditionFailure("a node run cannot end \(result.status)")
        }
        let isOver = old.running == 0 && !old.awaitingApp
        stopping = consume old
        guard isOver else { return NodeAction(resume: [], cancel: nil) }
        return NodeAction(resume: [], cancel: nil, then: endStopping(now: now))
    }

    /// Where the late value of `slot` from `old`, a build an incremental reset or a reload
    /// superseded, carries over to in the generation the operation began: the operation kept
    /// the service, nothing began since, the new generation neither holds a value for it nor has
    /// a build waiting to make it, and every value it was built on is still held (no failure or
    /// shutdown retired one since). `nil`: it is torn down.
    private func carriedSlot(for slot: Int, of old: BuildState) -> Int? {
        guard case .open = phase, let late = old.lateValues, late.generation == generation,
            let new = late.slot(for: slot), new < graph.builtCount, !state.hasValue(new),
            graph.dependencies[new].allSatisfy(state.hasValue), build.map({ !$0.isMember(new) }) ?? true
        else { return nil }
        return new
    }

    /// The name of `slot` in the graph `old` was built on (a reload may have replaced it).
    private func nodeName(_ slot: Int, of old: BuildState) -> String {
        old.ticket?.graph.nodes[slot].name ?? graph.nodes[slot].name
    }

    /// The superseded build's last node ended: its members that never ran end cancelled before
    /// they started, `build.cancelled`, and the next job.
    mutating func endStopping(now: Duration) -> Lifecycle {
        guard let old = stopping else { return continueLifecycle(now: now) }
        for slot in old.members where old.records[slot].status == .pending {
            let name = nodeName(slot, of: old)
            record(.nodeCancelled(node: name, phase: .beforeStart), old.build)
        }
        record(.buildCancelled, old.build)
        stopping = nil
        return continueLifecycle(now: now)
    }
}
