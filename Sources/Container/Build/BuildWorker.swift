/// What the coordinator tells a worker after each of its results (and at its start): the nodes
/// that can start now, and how many nodes of the build wait for a dependency after them.
struct WorkerOrders: Sendable {
    /// Nodes to start, in the order the coordinator chose.
    var launches: [NodeLaunch]
    /// Nodes of the build not started yet once these are (they wait for a dependency).
    var unstarted: Int

    /// Nothing to start.
    static let none = WorkerOrders(launches: [], unstarted: 0)

    /// The highest priority of the launches, at least `floor` (a `TaskPriority.rawValue`).
    func priority(atLeast floor: UInt8) -> UInt8 {
        launches.reduce(floor) { max($0, $1.priority) }
    }
}

/// Who a build's workers hand their nodes' results to: the coordinator.
protocol NodeReporter: AnyObject, Sendable {
    /// Hands one result to the coordinator (a transition of its state machine), which puts what
    /// to start next in `next` (emptied first).
    func nodeFinished(_ result: NodeResult, of ticket: BuildTicket, into next: inout WorkerOrders)
}

/// A task that runs nodes of a build: those it is given, and those the coordinator starts when
/// its nodes finish (their dependents), in a task group of its own.
///
/// The coordinator decides *which* nodes start and when, and at what priority; a worker decides
/// only *where*: in a child task, or in its own task when that loses no parallelism (the one
/// node able to run while none of its children runs) or when the node was quick the last
/// time it ran (a child task would cost more than its provider; see ``SchedulerTuning``). A node
/// of another priority goes to a worker of that priority (a child task cannot run below its
/// parent), and a main-actor node to the build's ``MainActorLane``, which runs the ready ones
/// in one hop to the main actor. That choice is this type's alone, and depends on the build's
/// policy, the nodes' declarations and their last run times, never on tracing.
enum BuildWorker {
    /// Runs `orders` and everything the coordinator starts in answer to their results, in a
    /// task running at `priority`.
    static func run(
        _ orders: WorkerOrders, of ticket: BuildTicket, at priority: UInt8, reporter: some NodeReporter
    ) async {
        await withTaskGroup(of: NodeResult.self) { group in
            var queue = WorkerQueue(ticket: ticket, priority: priority, reporter: reporter)
            var inline = queue.take(orders, into: &group)
            // Reused for every result: a node's end allocates no array of launches.
            var next = WorkerOrders(launches: [], unstarted: 0)
            next.launches.reserveCapacity(4)
            while true {
                let result: NodeResult
                if let launch = inline {
                    result = await runHere(launch, of: ticket)
                } else if let finished = await group.next() {
                    result = finished
                } else {
                    break
                }
                next.launches.removeAll(keepingCapacity: true)
                reporter.nodeFinished(queue.finished(result), of: ticket, into: &next)
                inline = queue.take(next, into: &group)
            }
        }
    }

    /// Runs `launch` in this task, unless the build was cancelled before it could start.
    /// Inlined: a child task's frames must fit in its first allocation slab, or every child
    /// costs a malloc that its parent then frees on another thread.
    @inline(__always)
    private static func runHere(_ launch: NodeLaunch, of ticket: BuildTicket) async -> NodeResult {
        if Task.isCancelled { return .cancelledBeforeStart(launch.slot, at: ticket.tracer.now) }
        #if DEBUG
            return await RunningNode.$current.withValue(RunningNode(ticket: ticket, slot: launch.slot)) {
                await NodeRunner.run(launch, of: ticket)
            }
        #else
            return await NodeRunner.run(launch, of: ticket)
        #endif
    }

    /// Starts `launch` in a child task.
    fileprivate static func spawn(_ launch: NodeLaunch, of ticket: BuildTicket, in group: inout TaskGroup<NodeResult>) {
        group.addTask { await runHere(launch, of: ticket) }
    }

    /// Hands `launches` (main-actor nodes) to the build's main-actor lane, and `others` (nodes of
    /// other priorities, by priority) to new workers: what a worker does not run itself.
    static func handOff(
        main launches: [NodeLaunch], others: [NodeLaunch], unstarted: Int, of ticket: BuildTicket,
        reporter: some NodeReporter
    ) {
        if !launches.isEmpty, let lane = ticket.mainLane {
            // A priority whose batch neither runs nor is on its way: this one hop runs its
            // nodes and those that join it.
            for priority in lane.submit(launches, of: ticket) {
                ticket.spawnOnMainActor(priority: priority) {
                    await runMainActorBatch(of: ticket, at: priority, reporter: reporter)
                }
            }
        }
        var others = others[...]
        while let priority = others.first?.priority {
            let same = others.filter { $0.priority == priority }
            others = others.filter { $0.priority != priority }[...]
            let orders = WorkerOrders(launches: same, unstarted: unstarted)
            ticket.spawn(priority: priority) { await run(orders, of: ticket, at: priority, reporter: reporter) }
        }
    }

    /// Hands the main-actor nodes of `orders` to the build's main-actor lane; returns the others.
    static func handOffMainActorNodes(
        _ orders: WorkerOrders, of ticket: BuildTicket, reporter: some NodeReporter
    ) -> WorkerOrders {
        let nodes = ticket.graph.nodes
        let main = orders.launches.filter { nodes[$0.slot].runsOnMainActor }
        guard !main.isEmpty else { return orders }
        handOff(main: main, others: [], unstarted: orders.unstarted, of: ticket, reporter: reporter)
        return WorkerOrders(
            launches: orders.launches.filter { !nodes[$0.slot].runsOnMainActor }, unstarted: orders.unstarted)
    }

    /// Runs the build's main-actor nodes of `lanePriority` one after another on the main actor,
    /// longest remaining path first, until none waits: those queued when the batch started and
    /// those that become ready while it runs, all in this one hop. What their results start
    /// elsewhere goes to new workers, so a main-actor node never holds up the others.
    @MainActor
    private static func runMainActorBatch(
        of ticket: BuildTicket, at lanePriority: UInt8, reporter: some NodeReporter
    ) async {
        guard let lane = ticket.mainLane else { return }
        var next = WorkerOrders(launches: [], unstarted: 0)
        // The priority the batch's task was made at: every node of the batch runs at it.
        let priority = Task.basePriority?.rawValue ?? 0
        var first = true
        while var launch = lane.next(at: lanePriority) {
            launch.priority = priority
            var result: NodeResult
            if Task.isCancelled {
                result = .cancelledBeforeStart(launch.slot, at: ticket.tracer.now)
            } else {
                #if DEBUG
                    let node = RunningNode(ticket: ticket, slot: launch.slot)
                    result = await RunningNode.$current.withValue(node) {
                        await NodeRunner.run(launch, of: ticket, on: .main)
                    }
                #else
                    result = await NodeRunner.run(launch, of: ticket, on: .main)
                #endif
            }
            result.opensBatch = first
            first = false
            if result.status == .succeeded || result.status == .failed {
                ticket.runTimes.record(result.slot, took: result.endedAt - result.startedAt)
            }
            next.launches.removeAll(keepingCapacity: true)
            reporter.nodeFinished(result, of: ticket, into: &next)
            guard !next.launches.isEmpty else { continue }
            // Main-actor nodes join this batch (the lane is active); the others go to new workers.
            let main = next.launches.filter { ticket.graph.nodes[$0.slot].runsOnMainActor }
            let pool = next.launches.filter { !ticket.graph.nodes[$0.slot].runsOnMainActor }
            handOff(main: main, others: pool, unstarted: next.unstarted, of: ticket, reporter: reporter)
        }
    }
}

/// A worker's nodes: those running in child tasks, the quick ones queued to run in its own task,
/// and the one held back to run there when that loses no parallelism.
private struct WorkerQueue<Reporter: NodeReporter> {
    let ticket: BuildTicket
    /// The priority of the worker's task: nodes of another priority go to other workers.
    let priority: UInt8
    let reporter: Reporter
    /// Whether the graph has main-actor nodes (only then is a launch's isolation looked at).
    let hasMainActorNodes: Bool
    /// Nodes started and not finished (children, and the one running inline).
    private var running = 0
    /// Quick nodes to run inline one after another, with their expected times.
    private var queued: [(launch: NodeLaunch, nanoseconds: UInt32)] = []
    private var head = 0
    /// The expected time of the queued nodes not started yet.
    private var queuedWork: UInt32 = 0

    init(ticket: BuildTicket, priority: UInt8, reporter: Reporter) {
        self.ticket = ticket
        self.priority = priority
        self.reporter = reporter
        hasMainActorNodes = ticket.mainLane != nil
    }

    /// Records that a node of this worker finished (and its run time); returns the result.
    mutating func finished(_ result: NodeResult) -> NodeResult {
        running -= 1
        if result.status == .succeeded || result.status == .failed {
            ticket.runTimes.record(result.slot, took: result.endedAt - result.startedAt)
        }
        return result
    }

    /// Whether this worker runs `launch` (its priority and executor are this worker's).
    private func runsHere(_ launch: NodeLaunch) -> Bool {
        (launch.priority == priority || launch.priority == 0)
            && !(hasMainActorNodes && ticket.graph.nodes[launch.slot].runsOnMainActor)
    }

    /// Takes `orders`: main-actor nodes and nodes of other priorities are handed off, quick
    /// nodes are queued to run inline, the last node of the step is held back, the others start
    /// as children. Returns the node to run inline next, if any.
    mutating func take(_ orders: WorkerOrders, into group: inout TaskGroup<NodeResult>) -> NodeLaunch? {
        var held: NodeLaunch?
        // Made only when a launch is not this worker's (rarely): most steps hand nothing off.
        var main: [NodeLaunch]?
        var others: [NodeLaunch]?
        for launch in orders.launches {
            guard runsHere(launch) else {
                if hasMainActorNodes && ticket.graph.nodes[launch.slot].runsOnMainActor {
                    if main?.append(launch) == nil { main = [launch] }
                } else {
                    if others?.append(launch) == nil { others = [launch] }
                }
                continue
            }
            if queueInline(launch) { continue }
            if let earlier = held { spawn(earlier, into: &group) }
            held = launch
        }
        if main != nil || others != nil {
            BuildWorker.handOff(
                main: main ?? [], others: others ?? [], unstarted: orders.unstarted, of: ticket, reporter: reporter)
        }
        if let held {
            // Inline only when none of this worker's children runs (a chain, a scope's first
            // service): a child's result waits in the group until the inline node returns, and
            // a request may be waiting for that child alone, or a node a request added for it.
            if head == queued.count && running == 0 {
                running += 1
                return held
            }
            spawn(held, into: &group)
        }
        return nextQueued()
    }

    /// Queues `launch` to run inline if its last run (in any build of the graph) took so little
    /// that the queue's expected work stays within the budget, so no queued node waits long.
    private mutating func queueInline(_ launch: NodeLaunch) -> Bool {
        guard ticket.inlineBudget > 0 else { return false }
        let expected = ticket.runTimes.last(launch.slot)
        guard expected <= ticket.inlineBudget - queuedWork else { return false }
        queuedWork += expected
        queued.append((launch, expected))
        return true
    }

    /// The next queued node to run inline, if any.
    private mutating func nextQueued() -> NodeLaunch? {
        guard head < queued.count else { return nil }
        let (launch, expected) = queued[head]
        head += 1
        queuedWork -= expected
        if head == queued.count {
            queued = []
            head = 0
        }
        running += 1
        return launch
    }

    private mutating func spawn(_ launch: NodeLaunch, into group: inout TaskGroup<NodeResult>) {
        running += 1
        BuildWorker.spawn(launch, of: ticket, in: &group)
    }
}
