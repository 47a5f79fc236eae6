import Synchronization

/// Synchronous requests (``ServiceContainer/resolveNow(_:as:isolation:)``, see <doc:LaunchTiers>): a caller
/// that cannot suspend asks like any other (one demand, answered exactly once), runs the
/// synchronous nodes of its closure that the build gives it on its own thread, and blocks only
/// while another worker makes a node it needs.
extension CoordinatorCore {
    /// The snapshot holding `name` and everything it depends on, built on the calling thread
    /// where it is missing.
    ///
    /// - Throws: ``AppServices/LookupError`` for an unknown name, ``ContainerError`` `.notSynchronous`
    ///   when the closure holds an asynchronous service (or, from a task, when another worker is
    ///   making a node it needs; from the main actor, when a main-actor node it needs is made
    ///   elsewhere), or what the build's failure or a shutdown gives its callers.
    func resolveNow(_ name: String, label: String?, onMainActor: Bool) throws -> AppServices {
        let closingAbove = isClosingAbove
        let graph = self.graph
        guard let slot = graph.layout.slots[name] else {
            throw AppServices.LookupError.notFound(name, known: graph.serviceNames)
        }
        if let found = graph.asynchronousNode(inClosureOf: slot) {
            throw ContainerError.notSynchronous(name, because: graph.nodes[found], generation: generation)
        }
        let given =
            try link == nil || closingAbove
            ? nil : appValuesNow(for: graph.closure(of: [slot]), of: graph, onMainActor: onMainActor)
        let caller = callerIDs.add(1, ordering: .relaxed).newValue
        let blocked = BlockedCaller()
        var stale: Machine.AppValues?
        let action = transition { machine, now in
            machine.requested(
                .names([name]), caller: caller, label: label ?? (tracer.isEnabled ? "resolveNow-\(caller)" : ""),
                waiter: .thread(blocked), priority: Task.currentPriority.rawValue, isCancelled: false, now: now,
                given: machine.current(given, stale: &stale), closingAbove: closingAbove)
        }
        if let stale { release(stale) }
        switch action {
        case .answer(let waiter, let outcome): resume(waiter, with: outcome)
        case .park(let raise, let start):
            if let raise { raise.ticket.escalate(to: raise.priority) }
            Self.$isRunningNodesNow.withValue(true) {
                runHere(start, for: name, until: blocked, onMainActor: onMainActor)
            }
        }
        // A task never blocks its thread (it may be one of the few of the pool that the worker it
        // would wait for needs), nor does a provider that resolveNow runs (the node it would wait
        // for may be one this thread is making), nor the main actor for a main-actor node made
        // elsewhere (that worker needs the main actor it holds): each stops waiting instead.
        if !blocked.isAnswered,
            withUnsafeCurrentTask(body: { $0 != nil }) || Self.isRunningNodesNow
                || (onMainActor && (waitsForMainActor(slot, in: graph) || waitsForMainActorAbove()))
        {
            if case .resume(let waiter) = transition({ machine, _ in machine.waiterCancelled(caller: caller) }) {
                resume(waiter, with: .cancelled)
                _ = blocked.wait()
                tookOverFromResumer()
                throw ContainerError.resolveNowWouldWait(name, generation: generation)
            }
        }
        let outcome = blocked.wait()
        tookOverFromResumer()
        switch outcome {
        case .snapshot(let snapshot): return snapshot
        case .failure(let error): throw error
        case .cancelled: throw CancellationError()
        }
    }

    /// Whether this thread is running nodes for a ``resolveNow(_:label:onMainActor:)``: a provider
    /// it runs never blocks in one of its own (a task-local value, bound on a thread that is not
    /// a task too).
    @TaskLocal static var isRunningNodesNow = false

    /// Whether a main-actor node of `slot`'s closure has no value yet (a worker makes it, on
    /// the main actor).
    private func waitsForMainActor(_ slot: Int, in graph: ServiceGraph) -> Bool {
        let main = graph.closure(of: [slot]).slots.filter { graph.nodes[$0].runsOnMainActor }
        guard !main.isEmpty else { return false }
        return lacksValue(amongst: main)
    }

    /// Whether this scope instance's build waits for app values while a coordinator up its chain
    /// has main-actor nodes: making them may need the main actor.
    private func waitsForMainActorAbove() -> Bool {
        var above = link?.parent
        while let core = above, !core.graph.hasMainActorNodes { above = core.link?.parent }
        return above != nil && awaitsAppValues
    }

    /// Runs the synchronous nodes of `name`'s closure that `start` launches, and those their
    /// ends start, on this thread, until the caller is answered; hands every other node to a
    /// worker task of the build, and starts a scope instance's fetch of app values as usual.
    /// A main-actor node runs here only for a caller on the main actor (`onMainActor`); the
    /// build's main-actor lane makes it for any other.
    private func runHere(_ start: Machine.Start, for name: String, until blocked: BlockedCaller, onMainActor: Bool) {
        if let fetch = start.fetch { spawnFetch(fetch) }
        guard let launch = start.launch else { return }
        let ticket = launch.ticket
        let graph = ticket.graph
        guard let root = graph.layout.slots[name] else { return spawnWorker(launch) }
        let closure = graph.closure(of: [root])
        // Room for the closure at once: the queue and the orders grow no step at a time.
        var queue: [NodeLaunch] = []
        queue.reserveCapacity(closure.count)
        var next = WorkerOrders(launches: [], unstarted: 0)
        next.launches.reserveCapacity(4)
        func take(_ orders: WorkerOrders) {
            var others: [NodeLaunch] = []
            for launch in orders.launches {
                let node = graph.nodes[launch.slot]
                if closure.contains(launch.slot) && node.isSynchronous && (onMainActor || !node.runsOnMainActor) {
                    queue.append(launch)
                } else {
                    others.append(launch)
                }
            }
            spawnWorker(
                Machine.Launch(ticket: ticket, orders: WorkerOrders(launches: others, unstarted: orders.unstarted)))
        }
        take(launch.orders)
        var head = 0
        while head < queue.count && !blocked.isAnswered {
            let launch = queue[head]
            head += 1
            let result =
                ticket.isCancelled
                ? NodeResult.cancelledBeforeStart(launch.slot, at: ticket.tracer.now)
                : NodeRunner.runNow(launch, of: ticket, on: onMainActor ? .main : .pool)
            if result.status == .succeeded || result.status == .failed {
                ticket.runTimes.record(result.slot, took: result.endedAt - result.startedAt)
            }
            next.launches.removeAll(keepingCapacity: true)
            nodeFinished(result, of: ticket, into: &next)
            take(next)
        }
        // Answered before its queue ran out (a node failed): the rest is the build's.
        if head < queue.count {
            spawnWorker(
                Machine.Launch(ticket: ticket, orders: WorkerOrders(launches: Array(queue[head...]), unstarted: 0)))
        }
    }

    /// For a scope instance: the app values `closure` (of its part `graph`) uses, built now by
    /// its parent where missing, and leased; `nil` when it needs none.
    private func appValuesNow(
        for closure: SlotSet, of graph: ServiceGraph, onMainActor: Bool
    ) throws -> Machine.AppValues? {
        guard let link else { return nil }
        // Read before the lease: a supersession after it makes the values this one's no more.
        let ownGeneration = generation
        let external = closure.slots.filter { $0 >= graph.builtCount }.sorted()
        guard !external.isEmpty else { return nil }
        var app: AppServices?
        for slot in external {
            let name = graph.nodes[slot].name
            if app?.contains(name) != true {
                app = try link.parent.resolveNow(name, label: label, onMainActor: onMainActor)
            }
        }
        guard let app else { return nil }
        var values: [(slot: Int, box: AnyServiceBox)] = []
        var leased: [(slot: Int, box: AnyServiceBox)] = []
        for slot in external {
            guard let appSlot = app.layout.slots[graph.nodes[slot].name], let box = app.values.value(at: appSlot)
            else { return nil }
            values.append((slot, box))
            leased.append((appSlot, box))
        }
        // Retired meanwhile (a reset of the parent): the build fetches them itself.
        guard link.parent.lease(child: link.child, values: leased) == .leased else { return nil }
        return Machine.AppValues(values: values, generation: app.generation, forGeneration: ownGeneration)
    }
}
