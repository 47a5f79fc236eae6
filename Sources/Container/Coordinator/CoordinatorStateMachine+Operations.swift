/// The operations that end a generation: reset, reload, shutdown (and a scope instance's close).
///
/// Each is one transition: it ends the callers and the build of the generation, retires its
/// values and supersedes, reloads or closes the scope instances that use any of them, all in the
/// same critical section, so nothing can slip between the retirement of a value and the
/// supersession of what was built on it.
extension CoordinatorStateMachine {
    /// Starts a new generation of the same graph; `invalidating` are the slots to rebuild with
    /// their dependents (`nil`: all of them). The others carry over.
    mutating func resetRequested(invalidating: Set<Int>?, waiter: OperationWaiter, now: Duration) -> OperationAction {
        // Closing: the supersession does not reach this instance's values, but it still reaches the
        // instances under it (they may not know of the close yet, and must not answer with values
        // built on what the operation retires).
        if let refusal = refusal() { return .refuse(waiter, refusal, forwarding: closesForwarded()) }
        let operation = takeOperationID()
        let from = generation
        var supersession = supersede(by: operation, with: .superseded(generation: from, by: from + 1))
        let retired = state.advance(invalidating: invalidating)
        if invalidating != nil, scopeInstance == nil, var old = stopping, old.supersededBy == .some(operation) {
            old.lateValues = .init(generation: generation, rebuilt: Set(retired.invalidated), newSlots: nil)
            stopping = old
        }
        let invalidated = state.names(of: retired.invalidated.filter { $0 < graph.builtCount })
        let change = TraceEvent.GenerationChange(
            from: from, to: generation, invalidated: invalidating.map { _ in invalidated })
        // Nested instances may lease the external values too (a scope hands its parent's on).
        supersession.children = childOrders(superseding: retired.values + retired.external, operation: operation)
        return beganGeneration(
            change, retired: retired, supersession: supersession, operation: operation, waiter: waiter,
            report: ServiceContainer.ResetReport(
                reason: .reset, from: from, to: generation, invalidated: invalidated,
                carried: carriedValues(besides: retired.invalidated.filter { $0 < graph.builtCount }),
                cancelledBuild: supersession.cancelledBuild),
            now: now)
    }

    /// Starts a new generation on `declared` (a reload) whose app part moves as `plan` says;
    /// `changes` names what the new graph changes, for the trace and for the scopes.
    mutating func reloadRequested(
        declared newDeclared: ServiceGraph, plan: ReloadPlan, changes: ServiceGraph.Changes,
        runTimes: NodeRunTimes? = nil,
        waiter: OperationWaiter, now: Duration
    ) -> OperationAction {
        if let refusal = refusal() { return .refuse(waiter, refusal, forwarding: closesForwarded()) }
        let operation = takeOperationID()
        let from = generation
        let old = graph
        var supersession = supersede(by: operation, with: .superseded(generation: from, by: from + 1))
        let newGraph = newDeclared.appPart
        let retired = state.advance(
            to: newGraph, plan: plan,
            runTimes: runTimes ?? NodeRunTimes.carrying(state.runTimes, from: old, to: newGraph))
        declared = newDeclared
        if scopeInstance == nil, var superseded = stopping, superseded.supersededBy == .some(operation) {
            var newSlots: [Int: Int]?
            if let fromOld = plan.fromOld {
                newSlots = [:]
                for (new, old) in fromOld.enumerated() where old >= 0 { newSlots?[old] = new }
            }
            superseded.lateValues = .init(generation: generation, rebuilt: Set(plan.rebuiltSlots), newSlots: newSlots)
            stopping = superseded
        }
        var partTimes: [String: NodeRunTimes] = [:]
        for scope in newDeclared.scopeNames {
            let part = newDeclared.scopeParts[scope]
            partTimes[scope] =
                changes.changedScopes.contains(scope) || scopeRunTimes[scope] == nil
                ? NodeRunTimes(count: part?.nodes.count ?? 0) : scopeRunTimes[scope]
        }
        scopeRunTimes = partTimes
        // The app's own services (a scope part's are its instances' business).
        func own(_ name: String) -> Bool {
            (newGraph.layout.slots[name].map { $0 < newGraph.builtCount } ?? false)
                || (old.layout.slots[name].map { $0 < old.builtCount } ?? false)
        }
        let rebuilt = plan.rebuiltSlots.map { newGraph.serviceNames[$0] }
        let change = TraceEvent.GenerationChange(
            from: from, to: generation, invalidated: rebuilt, reason: .reload,
            added: changes.added.filter(own), removed: changes.removed.filter(own),
            changed: changes.changed.filter(own))
        supersession.children = childOrders(
            superseding: retired.values + retired.external, operation: operation,
            closing: Set(changes.removedScopes),
            reloading: Set(changes.changedScopes))
        return beganGeneration(
            change, retired: retired, supersession: supersession, operation: operation, waiter: waiter,
            report: ServiceContainer.ResetReport(
                reason: .reload, from: from, to: generation, invalidated: rebuilt,
                carried: carriedValues(besides: plan.rebuiltSlots),
                cancelledBuild: supersession.cancelledBuild),
            now: now)
    }

    /// The app services whose values the new generation holds from the old one: a service that
    /// held none (never asked for, or retired by a failure) did not carry over, whatever changed.
    /// `rebuilt` (ascending) hold no value now: when every other service holds one, the usual
    /// case, the list is "all but them" without visiting every slot of a large graph.
    private func carriedValues(besides rebuilt: [Int]) -> SlotNames {
        if state.ownCount == graph.builtCount - rebuilt.count {
            return SlotNames(allBut: rebuilt, of: graph.serviceNames)
        }
        return SlotNames(state.values.keys.filter { $0 < graph.builtCount }, of: graph.serviceNames)
    }

    /// The rest of a reset or reload, once the new generation's values are settled: queues the
    /// retired values, traces the change and the superseded callers, and makes `operation`'s
    /// waiter wait for the teardown of what it retired and for the scope instances it ended.
    private mutating func beganGeneration(
        _ change: TraceEvent.GenerationChange, retired: GenerationState.Retired, supersession: Supersession,
        operation: Int, waiter: OperationWaiter, report: ServiceContainer.ResetReport, now: Duration
    ) -> OperationAction {
        teardowns.enqueue(retired.values, owner: operation)
        releasing += retired.external
        attempt = 1
        clearForNewGeneration()
        record(.generationReset(change), BuildAttempt(generation: generation, attempt: 1))
        traceResumptions(supersession, result: .superseded)
        teardowns.add(.init(id: operation, waiter: waiter, report: report))
        teardowns.expect(
            children: supersession.children.map(\.id),
            answering: Set(supersession.children.lazy.filter { !$0.order.isClose }.map(\.id)), for: operation)
        if let build = supersession.cancelledBuild { teardowns.noteCancelled(build, by: operation) }
        return .proceed(supersession, then: continueLifecycle(now: now))
    }

    /// Shuts down: with `graceful`, a launched build may finish first (``Phase/draining(shutdown:)``,
    /// until the storage's deadline); otherwise it is cancelled at once. Every scope instance is
    /// closed and every value torn down (the instances' first). `error` is what later calls get
    /// (`.shutDown`, or a scope instance's `.closed`).
    mutating func shutdownRequested(
        waiter: OperationWaiter, graceful: Bool, error: ContainerError, now: Duration
    ) -> ShutdownAction {
        if let refusal = refusal() { return .refuse(waiter, refusal, forwarding: closesForwarded()) }
        let operation = takeOperationID()
        let report = ServiceContainer.ResetReport(
            reason: .shutdown, from: generation, to: generation,
            invalidated: state.names(of: state.values.keys.filter { $0 < graph.builtCount }), carriedOver: [])
        teardowns.add(.init(id: operation, waiter: waiter, report: report, awaitsTrace: true))
        // Every instance, those closing already too: another operation's close of one may not
        // have reached it yet, and it must refuse its calls from this step on (a second close
        // of an instance that is closed is refused, and changes nothing).
        let closing = children.all.map { entry in
            ChildOrder(child: entry.child, id: entry.id, order: .close, operation: operation)
        }
        for order in closing where children.isOpen(order.id) { children.markClosing(order.id) }
        // The instances closing already (their own close) end before this shutdown completes too.
        teardowns.expect(children: children.all.map(\.id), for: operation)
        if graceful, let current = build, current.isLaunched {
            phase = .draining(shutdown: operation)
            return .drain(operation: operation, children: closing)
        }
        var supersession = shutDown(operation: operation, error: error)
        supersession.children = closing
        return .proceed(supersession, then: continueLifecycle(now: now))
    }

    /// A close refused because this coordinator is closing already still goes on to its
    /// instances, for the close in progress: that close may not have told them yet, and whoever
    /// asked (a parent's shutdown) must find every instance below refusing calls once its order
    /// returns. A second close of an instance that is closed changes nothing.
    func closesForwarded() -> [ChildOrder] {
        guard let operation = shutdownOperation else { return [] }
        return children.all.map { ChildOrder(child: $0.child, id: $0.id, order: .close, operation: operation) }
    }

    /// The shutdown (or close) under way or done, if any.
    private var shutdownOperation: Int? {
        switch phase {
        case .open: nil
        case .draining(let shutdown), .shutDown(_, let shutdown): shutdown
        }
    }

    /// Traces the shutdown (or the close) once, after the scope instances it closed traced
    /// theirs (their values go first). A close refused because one is in progress traces it too,
    /// after passing it on (see `closesForwarded()`), so whichever returns first finds it traced;
    /// while a graceful shutdown drains, the trace waits for the drain's end (``drainEnded(now:)``),
    /// and so do the refused calls (``refusedShutdown(_:_:)``). Until then the shutdown does not
    /// complete: its waiter and its parent hear of its end only after its trace.
    mutating func shutdownTraced(now: Duration) -> Lifecycle {
        var refused: [(waiter: OperationWaiter, error: ContainerError)] = []
        switch endTrace {
        case .traced: return Lifecycle()
        case .pending:
            // The build a graceful shutdown lets finish may still publish: the drain's end
            // traces the shutdown.
            if case .draining = phase {
                endTrace = .awaitingDrain(refused: [])
                return Lifecycle()
            }
        case .awaitingDrain(let waiting):
            if case .draining = phase { return Lifecycle() }
            refused = waiting
        }
        endTrace = .traced
        let ended: TraceEvent.Kind = scopeInstance == nil ? .containerShutdown : .scopeClosed
        record(ended)
        if let shutdownOperation { teardowns.traced(shutdownOperation) }
        var lifecycle = continueLifecycle(now: now)
        lifecycle.refused = refused
        return lifecycle
    }

    /// A shutdown (or close) refused because one is under way: answered now, or, while a
    /// graceful shutdown drains, once that one is traced (`nil`), so that whichever returns
    /// first finds `container.shutdown` written.
    mutating func refusedShutdown(_ waiter: OperationWaiter, _ error: ContainerError) -> OperationWaiter? {
        guard case .awaitingDrain(var refused) = endTrace else { return waiter }
        refused.append((waiter, error))
        endTrace = .awaitingDrain(refused: refused)
        return nil
    }

    /// The deadline of a graceful shutdown passed: the build it waited for is cancelled.
    mutating func shutdownDeadlinePassed(operation: Int, now: Duration) -> DeadlineAction {
        guard case .draining(operation) = phase else { return .none }
        let supersession = shutDown(operation: operation, error: .shutDown(generation: generation))
        return .cancel(supersession, then: drainEnded(now: now))
    }

    /// A graceful shutdown's drain ended (its build ended, or the deadline passed): the shutdown
    /// is traced now if it waited for that, and the lifecycle goes on.
    mutating func drainEnded(now: Duration) -> Lifecycle {
        guard case .awaitingDrain = endTrace else { return continueLifecycle(now: now) }
        return shutdownTraced(now: now)
    }

    /// Ends everything for shutdown `operation`: callers, the build, every value.
    mutating func shutDown(operation: Int, error: ContainerError) -> Supersession {
        let supersession = supersede(by: operation, with: error)
        traceResumptions(supersession, result: .failure)
        let retired = state.retireAll()
        teardowns.enqueue(retired.values, owner: operation)
        releasing += retired.external
        if let build = supersession.cancelledBuild { teardowns.noteCancelled(build, by: operation) }
        phase = .shutDown(error, operation: operation)
        return supersession
    }

    /// Ends the callers and the build of the generation for operation `owner`: the callers will
    /// get `error`, a launched build is cancelled (its late values are reported by `owner`), the
    /// published snapshot is cleared.
    mutating func supersede(by owner: Int, with error: ContainerError) -> Supersession {
        let ended = demands.removeAll()
        var labels: [String] = []
        var waiters: [Waiter] = []
        for demand in ended {
            var callers = demand.callers
            let taken = callers.removeAll(named: trace.isEnabled)
            waiters += taken.waiters
            labels += taken.labels
        }
        var cancel: BuildTicket?
        var cancelledBuild: BuildAttempt?
        if var current = build, current.isLaunched {
            current.supersededBy = .some(owner)
            current.stopped = true
            cancel = current.ticket
            cancelledBuild = current.build
            stopping = current
        }
        build = nil
        if published != nil {
            clearPublished()
        }
        return Supersession(
            resume: waiters.isEmpty ? [] : [Resumption(waiters: waiters, outcome: .failure(error))],
            labels: labels, attempt: currentAttempt, cancel: cancel, cancelledBuild: cancelledBuild, children: [],
            operation: owner)
    }

    /// Traces the resumption of the callers `supersession` ended.
    mutating func traceResumptions(_ supersession: Supersession, result: TraceEvent.CallerResult) {
        for label in supersession.labels { record(.callerResumed(caller: label, result: result), supersession.attempt) }
    }
}
