/// The machine's answers to the operations that end a generation: reset, reload, shutdown.
extension CoordinatorStateMachine {
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
        return beganGeneration(
            change, ended: supersession, operation: operation, waiter: waiter,
            report: ResetReport(
                reason: .reset, from: from, to: generation, invalidated: invalidated,
                carried: SlotNames(values.kept.keys, of: values.graph.serviceNames),
                cancelledBuild: supersession.cancelledBuild))
    }

    /// Starts a new generation on `graph` (a reload): the values of `carrying` (by new slot of
    /// the graph's built services: its old slot, or -1 for a rebuilt one) carry over, every
    /// other value is retired.
    mutating func reloadRequested(
        graph: ServiceGraph, carrying fromOld: [Int], change: GenerationChange, waiter: OperationWaiter
    ) -> OperationAction {
        reloadRequested(graph: graph, plan: ReloadPlan(fromOld: fromOld, in: graph), change: change, waiter: waiter)
    }

    /// Starts a new generation on `graph` (a reload) as `plan` says.
    mutating func reloadRequested(
        graph: ServiceGraph, plan: ReloadPlan, change: GenerationChange, waiter: OperationWaiter
    ) -> OperationAction {
        if let refusal = refusal() { return .refuse(waiter, refusal) }
        let operation = takeOperationID()
        let from = generation
        var supersession = supersede(owner: operation, with: .superseded(generation: from, by: from + 1))
        let oldGraph = values.graph
        let oldNames = oldGraph.serviceNames
        if let fromOld = plan.fromOld {
            var isCarried = [Bool](repeating: false, count: oldGraph.nodes.count)
            for oldSlot in fromOld where oldSlot >= 0 { isCarried[oldSlot] = true }
            supersession.retired = Set((0..<oldGraph.builtCount).filter { !isCarried[$0] }.map { oldNames[$0] })
        } else {
            supersession.retired = Set(plan.rebuiltSlots.map { oldNames[$0] })
        }
        jobs.enqueue(values.advance(to: graph, plan: plan), owner: operation)
        upstreamFailures = 0
        return beganGeneration(
            change, ended: supersession, operation: operation, waiter: waiter,
            report: ResetReport(
                reason: .reload, from: from, to: generation,
                invalidated: plan.rebuiltSlots.map { graph.serviceNames[$0] }, carried: plan.carried,
                cancelledBuild: supersession.cancelledBuild))
    }

    /// The rest of a reset or reload, once the new generation's values are settled: traces the
    /// change and the superseded callers, leaves the first attempt idle, and makes `operation`'s
    /// waiter wait for the teardown of what it retired, with `report`.
    private mutating func beganGeneration(
        _ change: GenerationChange, ended: Ended, operation: Int, waiter: OperationWaiter, report: ResetReport
    ) -> OperationAction {
        record(.generationReset(change), BuildAttempt(generation: generation, attempt: 1))
        traceResumptions(ended, result: .superseded)
        phase = .idle(attempt: 1)
        jobs.add(.init(id: operation, waiter: waiter, report: report))
        return .proceed(ended.action, then: continueLifecycle())
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
    mutating func shutDown(operation: Int, error: ContainerError) -> Supersession {
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

    mutating func takeOperationID() -> Int {
        defer { nextOperationID += 1 }
        return nextOperationID
    }

    /// The callers and build a reset or shutdown ends.
    struct Ended {
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
    mutating func supersede(owner: Int, with error: ContainerError) -> Ended {
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

    mutating func traceResumptions(_ ended: Ended, result: CallerResult) {
        for label in ended.callers.labels { record(.callerResumed(caller: label, result: result), ended.attempt) }
    }
}
