/// What the coordinator tells a worker after each of its results (and at its start): the nodes
/// that can start now, and how many nodes of the build wait for a dependency after them.
struct WorkerOrders: Sendable {
    /// Nodes to start, in the order the coordinator chose.
    var launches: [NodeLaunch]
    /// Nodes of the build not started yet once these are (they wait for a dependency).
    var unstarted: Int

    /// Nothing to start.
    static let none = WorkerOrders(launches: [], unstarted: 0)
}

/// A task that runs nodes of a build: those it is given, and those the coordinator starts when
/// its nodes finish (their dependents), in a task group of its own.
///
/// The coordinator decides *which* nodes start and when; a worker decides only *where*: in a
/// child task, or in its own task when that loses no parallelism (the one node able to run, or
/// the last of the build to start) or when the node was quick the last time it ran (a child
/// task would cost more than its provider; see ``SchedulerTuning``). That choice is this type's
/// alone, and depends on the build's policy and the nodes' last run times, never on tracing.
enum BuildWorker {
    /// Runs `orders` and everything the coordinator starts in answer to their results.
    ///
    /// - Parameter report: hands one result to the coordinator (a transition of its state
    ///   machine), which puts what to start next in the orders given (emptied first).
    static func run(
        _ orders: WorkerOrders, of ticket: BuildTicket, report: (NodeResult, inout WorkerOrders) -> Void
    ) async {
        await withTaskGroup(of: NodeResult.self) { group in
            var queue = WorkerQueue(ticket: ticket)
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
                report(queue.finished(result), &next)
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
        return await NodeRunner.run(launch, of: ticket)
    }

    /// Starts `launch` in a child task.
    fileprivate static func spawn(_ launch: NodeLaunch, of ticket: BuildTicket, in group: inout TaskGroup<NodeResult>) {
        group.addTask { await runHere(launch, of: ticket) }
    }
}

/// A worker's nodes: those running in child tasks, the quick ones queued to run in its own task,
/// and the one held back to run there when that loses no parallelism.
private struct WorkerQueue {
    let ticket: BuildTicket
    /// Whether the last node of the build to start may run inline beside running children: only
    /// when a failure stops nothing (a fail-fast build must see each result as it comes).
    let lastRunsInline: Bool
    /// Nodes started and not finished (children, and the one running inline).
    private var running = 0
    /// Quick nodes to run inline one after another, with their expected times.
    private var queued: [(launch: NodeLaunch, nanoseconds: UInt32)] = []
    private var head = 0
    /// The expected time of the queued nodes not started yet.
    private var queuedWork: UInt32 = 0

    init(ticket: BuildTicket) {
        self.ticket = ticket
        lastRunsInline = ticket.policy.failureMode == .continueIndependent
    }

    /// Records that a node of this worker finished (and its run time); returns the result.
    mutating func finished(_ result: NodeResult) -> NodeResult {
        running -= 1
        if result.status == .succeeded || result.status == .failed {
            ticket.runTimes.record(result.slot, took: result.endedAt - result.startedAt)
        }
        return result
    }

    /// Takes `orders`: quick nodes are queued to run inline, the last node of the step is held
    /// back, the others start as children. Returns the node to run inline next, if any.
    mutating func take(_ orders: WorkerOrders, into group: inout TaskGroup<NodeResult>) -> NodeLaunch? {
        var held: NodeLaunch?
        for launch in orders.launches {
            if queueInline(launch) { continue }
            if let earlier = held { spawn(earlier, into: &group) }
            held = launch
        }
        if let held {
            // Inline when nothing else can run meanwhile (a chain, a scope's first service) or
            // when it is the build's last node to start: a child task would buy nothing.
            if head == queued.count && (running == 0 || (lastRunsInline && orders.unstarted == 0)) {
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
