/// Reset, reload and shutdown: each an operation of the machine, whose waiter is answered once
/// the values it retired are torn down (see <doc:CoordinatorRules>).
extension CoordinatorCore {
    func reset(invalidating names: [String]?) async throws(ContainerError) -> ServiceContainer.ResetReport {
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
                    // A scoped service is declared, but lives in scope instances, not here.
                    let scoped = unknown.compactMap { name -> (String, String)? in
                        machine.declared.lifetime(of: name)?.scope.map { (name, $0) }
                    }
                    return .refuse(
                        done,
                        .unknownServices(
                            unknown, known: known, scoped: Dictionary(scoped) { first, _ in first },
                            generation: machine.generation))
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
    /// rebuilt and closed. An instance closing on its own refuses its rebuild: it is not listed.
    func reload(
        _ graph: ServiceGraph, changes: ServiceGraph.Changes, from previous: ServiceGraph
    ) async throws(ContainerError) -> (report: ServiceContainer.ResetReport, reloaded: [String], closed: [String]) {
        // The instances ordered to rebuild, in order, and those that accepted. An instance
        // accepts in the step of its own that starts the rebuild, before it can report back to
        // the reload (or close): every answer is in once the reload completes.
        let scoped = Locked<(ordered: [(ObjectIdentifier, String)], rebuilt: Set<ObjectIdentifier>, closed: [String])>(
            ([], [], []))
        let report = try await withOperation { done in
            let action = transition { machine, now -> Machine.OperationAction in
                if let refusal = machine.refusal() { return .refuse(done, refusal) }
                let old = machine.graph
                // In place only when `changes` compared exactly these two graphs (no scopes).
                let whole = graph.appPart === graph && previous.appPart === previous && old === previous
                let plan = ReloadPlan(from: old, to: graph.appPart, changes: changes, inPlace: whole)
                return machine.reloadRequested(declared: graph, plan: plan, changes: changes, waiter: done, now: now)
            }
            guard case .proceed(let supersession, let lifecycle) = action else { return perform(action) }
            scoped.withLock { scoped in
                for order in supersession.children {
                    switch order.order {
                    case .reload: scoped.ordered.append((ObjectIdentifier(order.child), order.child.label ?? ""))
                    case .close: scoped.closed.append(order.child.label ?? "")
                    case .supersede: break
                    }
                }
            }
            perform(supersession, lifecycle) { child in
                _ = scoped.withLock { $0.rebuilt.insert(ObjectIdentifier(child)) }
            }
        }
        return scoped.withLock { scoped in
            (report, scoped.ordered.compactMap { scoped.rebuilt.contains($0.0) ? $0.1 : nil }, scoped.closed)
        }
    }

    /// Rebuilds this scope instance on a new `part` of its app's graph (its app's reload).
    /// `accepted` runs in the step that starts the rebuild (not when the instance refuses it,
    /// closing on its own), under this instance's lock: it must only record.
    func beginReload(
        _ part: ServiceGraph, runTimes: NodeRunTimes, accepted: (@Sendable () -> Void)? = nil,
        then done: @escaping OperationWaiter
    ) {
        perform(
            transition { machine, now -> Machine.OperationAction in
                let changes = part.changes(from: machine.graph)
                // Everything is rebuilt: its app values may have changed with the part.
                let plan = ReloadPlan(fromOld: [Int](repeating: -1, count: part.builtCount))
                let action = machine.reloadRequested(
                    declared: part, plan: plan, changes: changes, runTimes: runTimes, waiter: done, now: now)
                if let accepted, case .proceed = action { accepted() }
                return action
            })
    }

    /// Shuts down; a running build may finish until `deadline` (`nil`: cancelled at once).
    /// `error` is what later calls get. Scope instances are closed first, in the same step that
    /// refuses every new call. Returns once the trace has every event up to the shutdown's.
    func shutdown(deadline: ContinuousClock.Instant?, error: ContainerError) async throws(ContainerError)
        -> ServiceContainer.ResetReport
    {
        let result: Result<ServiceContainer.ResetReport, ContainerError>
        do {
            result = .success(
                try await withOperation { done in beginShutdown(deadline: deadline, error: error, then: done) })
        } catch {
            result = .failure(error)
        }
        await tracer.flushed()
        return try result.get()
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
        // An instance closing on its own is no longer listed open by its parent from now on.
        if let link, !action.isRefusal { link.parent.childClosing(link.child) }
        switch action {
        case .refuse(let waiter, let error, let forwarded):
            // Every instance below has refused calls and traced its close when this returns.
            perform(forwarded)
            traceShutdown()
            let now = transition { machine, _ in machine.refusedShutdown(waiter, error) }
            now?(.failure(error))
        case .drain(let operation, let children):
            perform(children)
            traceShutdown()
            Task.detached { [self] in
                // The deadline is a timer, not an order of events: it only bounds the wait.
                if let deadline { try? await Task.sleep(until: deadline, clock: .continuous) }
                perform(transition { machine, now in machine.shutdownDeadlinePassed(operation: operation, now: now) })
            }
        case .proceed(let supersession, let lifecycle):
            resume(supersession.resume)
            cancel(supersession.cancel)
            perform(supersession.children)
            traceShutdown()
            perform(lifecycle)
        }
    }

    /// Traces the shutdown (or close) once the instances below have been told (after their
    /// `scope.closed`), and goes on with what waited for that trace.
    private func traceShutdown() {
        perform(transition { machine, now in machine.shutdownTraced(now: now) })
    }

    /// Runs `begin` with a completion that resumes this call.
    func withOperation(_ begin: (@escaping OperationWaiter) -> Void) async throws(ContainerError)
        -> ServiceContainer.ResetReport
    {
        let result = await withCheckedContinuation { continuation in
            begin { [self] in
                handingOverToCaller()
                continuation.resume(returning: $0)
            }
        }
        tookOverFromResumer()
        return try result.get()
    }
}
