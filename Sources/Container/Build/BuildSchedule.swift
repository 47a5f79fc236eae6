/// The scheduling state of one build attempt (``GraphBuilder/run()``): which nodes wait for how
/// many dependencies, each node's record, the values made. Synchronous and never inlined into
/// the builder's async function, whose frame (allocated per build, like every async frame)
/// would otherwise hold every temporary of this code.
struct BuildSchedule {
    let builder: GraphBuilder
    /// `build.started` was stamped by the coordinator when it launched the build; this is when
    /// the builder began.
    let startedAt: Duration
    private var records: BuildRecords
    /// The slots this attempt builds (those without a value when it starts), in topological
    /// order: after a partial reset of a large graph, a few; every pass of the build is over these.
    private let toBuild: [Int]
    /// What this attempt makes: kept or torn down by the coordinator.
    private var built: SlotValues
    /// Dependencies still without a value, per node.
    private var waitingOn: [Int32]
    /// Set once the build winds down (a reset, or fail-fast after a failure): nothing more starts.
    private var stopped = false
    /// Nodes started and not finished (child tasks, and the node run inline).
    private var running = 0
    /// Nodes of ``toBuild`` not started yet (nor held back).
    private var unstarted: Int
    /// The last node that became ready in this step, not started yet: it may run inline, in the
    /// build's own task (see ``endStep(in:)``); the ones before it start as child tasks.
    private var heldBack: Int?
    /// Whether the last node to start, and nodes known to be quick, may run inline while child
    /// tasks run (``BuildPolicy/runsNodesInline(traced:)``).
    private let lastRunsInline: Bool
    /// ``BuildPolicy/inlineBudget`` in nanoseconds; 0 when nodes are not queued inline.
    private let inlineBudget: UInt32
    /// Ready nodes known to be quick, with their expected time, to run inline one after
    /// another (from ``inlineHead`` on); they wait for at most ``inlineBudget`` of work.
    private var inlineQueue: [(slot: Int, nanoseconds: UInt32)] = []
    private var inlineHead = 0
    /// The expected time of the queued nodes not started yet.
    private var queuedWork: UInt32 = 0

    /// The schedule of `builder`'s attempt: the external and kept values are in place.
    @inline(never)
    init(builder: GraphBuilder) {
        self.builder = builder
        let graph = builder.graph
        let count = graph.nodes.count
        startedAt = builder.tracer.now
        built = SlotValues(reservingSlots: graph.builtCount)
        // The app services a scope uses: present from the start, never built, kept or traced here.
        builder.external.forEach { slot, box in builder.setValue(box, of: slot) }
        // Nothing kept, and every external value there (a full build of the app, a scope
        // instance's first): the graph's own build order and counts, made once per graph.
        lastRunsInline = builder.policy.runsNodesInline(traced: builder.tracer.isEnabled)
        inlineBudget = builder.policy.inlineNanoseconds(traced: builder.tracer.isEnabled)
        if builder.kept.isEmpty && builder.external.count == count - graph.builtCount {
            records = BuildRecords(count: count, recordingFirst: graph.builtCount)
            toBuild = graph.builtOrder
            waitingOn = graph.builtDependencyCounts
            unstarted = toBuild.count
            return
        }
        // Some values are there: only the nodes without one get a record (the others read as
        // reused) and a count of the dependencies they wait for; every pass of the build is over
        // those alone, in topological order. A node with a value has its dependencies' values,
        // so a dependent of a node built here is itself built here.
        var missing: [Int] = []
        if let known = builder.missingSlots {
            // A partial reset or reload of a few services: the coordinator knows them.
            missing = known
        } else {
            builder.kept.forEachMissingSlot(below: count) { slot in
                if !builder.external.hasValue(slot) { missing.append(slot) }
            }
        }
        let records = BuildRecords(count: count, recording: missing)
        self.records = records
        if missing.count == count {
            toBuild = graph.topologicalOrder
        } else if missing.count < count / 8 {
            // A few nodes: sorted by their places in the topological order, not found in it.
            let rank = graph.topologicalRank
            toBuild = missing.sorted { rank[$0] < rank[$1] }
        } else {
            toBuild = graph.topologicalOrder.filter(records.isRecorded)
        }
        var waitingOn = [Int32](repeating: 0, count: count)
        for slot in toBuild {
            waitingOn[slot] = Int32(truncatingIfNeeded: graph.nodes[slot].dependencies.count { !builder.hasValue($0) })
        }
        self.waitingOn = waitingOn
        unstarted = toBuild.count
        if builder.tracer.isEnabled && !builder.kept.isEmpty {
            // In graph order, so traces of the same graph read the same way every time.
            for slot in graph.topologicalOrder where builder.kept.hasValue(slot) {
                builder.emit(.nodeReused(node: graph.nodes[slot].name))
            }
        }
    }

    /// Starts every node that waits for nothing; returns the node to run inline, if any (see
    /// ``endStep(in:)``).
    @inline(never)
    mutating func launchReady(in group: inout TaskGroup<NodeResult>) -> Int? {
        for slot in toBuild where records[slot].status == .pending && waitingOn[slot] == 0 {
            ready(slot, in: &group)
        }
        return endStep(in: &group)
    }

    /// `slot` can start: queued to run inline when it is known to be quick (see
    /// ``queueInline(_:)``), otherwise held back (see ``endStep(in:)``); the node held back
    /// before it in this step starts as a child task.
    private mutating func ready(_ slot: Int, in group: inout TaskGroup<NodeResult>) {
        unstarted -= 1
        if queueInline(slot) { return }
        if let held = heldBack { launch(held, in: &group) }
        heldBack = slot
    }

    /// Queues `slot` to run inline if its last run (in any build of the graph) took so little
    /// that the queue's expected work stays within the budget: a child task would cost more
    /// than the provider, and no queued node waits longer than the budget.
    private mutating func queueInline(_ slot: Int) -> Bool {
        guard inlineBudget > 0 else { return false }
        let expected = builder.graph.runTimes.last(slot)
        guard expected <= inlineBudget - queuedWork else { return false }
        queuedWork += expected
        inlineQueue.append((slot, expected))
        return true
    }

    /// The next queued node to run inline, if any, unless the build was cancelled (a queued
    /// node then never starts: it ends cancelled before start).
    private mutating func nextQueued() -> Int? {
        guard inlineHead < inlineQueue.count else { return nil }
        stopped = stopped || Task.isCancelled
        guard !stopped else { return nil }
        let (slot, expected) = inlineQueue[inlineHead]
        inlineHead += 1
        queuedWork -= expected
        if inlineHead == inlineQueue.count {
            inlineQueue.removeAll(keepingCapacity: true)
            inlineHead = 0
        }
        running += 1
        return slot
    }

    private mutating func launch(_ slot: Int, in group: inout TaskGroup<NodeResult>) {
        running += 1
        builder.launch(slot, in: &group)
    }

    /// Ends a step (the start, or one node's result): the node held back is returned, to run
    /// inline, when that loses no parallelism: either it is the only one that can run (no other
    /// node runs, is queued or can become ready before it ends: a scope instance's first
    /// service, every link of a chain), or it is the last node of the build to start (the nodes
    /// running beside it have no dependent left to start; see ``lastRunsInline``). A child task
    /// would buy nothing and cost a task. Otherwise it starts as a child task, and the next
    /// quick node queued, if any, runs inline.
    private mutating func endStep(in group: inout TaskGroup<NodeResult>) -> Int? {
        if let held = heldBack {
            heldBack = nil
            if inlineHead == inlineQueue.count && (running == 0 || (lastRunsInline && unstarted == 0)) {
                running += 1
                return held
            }
            launch(held, in: &group)
        }
        return nextQueued()
    }

    /// Records a node's result; starts the dependents it was the last missing dependency of and
    /// returns the one to run inline, if any (see ``endStep(in:)``).
    @inline(never)
    mutating func finished(_ result: NodeResult, in group: inout TaskGroup<NodeResult>) -> Int? {
        running -= 1
        let slot = result.slot
        // Read only for a trace event: untraced, the node (a cache miss in a large graph) is
        // not visited again.
        var name: String { builder.graph.nodes[slot].name }
        records[slot] = BuildRecords.Record(
            status: result.status, runs: result.runs, startedAt: result.startedAt, endedAt: result.endedAt)
        if result.status != .cancelledWhileRunning {
            builder.graph.runTimes.record(slot, took: result.endedAt - result.startedAt)
        }
        switch result.status {
        case .succeeded:
            builder.emit(.nodeSucceeded(node: name, duration: result.endedAt - result.startedAt))
            builder.setValue(result.box, of: slot)
            built[slot] = result.box
            // A dependent whose last missing dependency this was can start now, unless the
            // build is winding down (reset, or fail-fast after a failure).
            for dependent in builder.graph.dependents[slot] {
                waitingOn[dependent] -= 1
                guard waitingOn[dependent] == 0 else { continue }
                stopped = stopped || Task.isCancelled
                if !stopped { ready(dependent, in: &group) }
            }
        case .failed:
            guard let failure = result.failure else { preconditionFailure("a failed run carries its failure") }
            records.failed(slot, failure)
            builder.emit(.nodeFailed(node: name, failure: failure.kind, error: failure.message))
            if builder.policy.failureMode == .failFast && !stopped {
                stopped = true
                group.cancelAll()
            }
        case .cancelledWhileRunning:
            builder.emit(.nodeCancelled(node: name, phase: .whileRunning))
        case .pending, .reused, .cancelledBeforeStart, .skipped:
            preconditionFailure("a node run cannot end \(result.status)")
        }
        return endStep(in: &group)
    }

    /// Once every launched node has ended: gives the nodes that never ran their outcome and
    /// returns the attempt's result.
    @inline(never)
    mutating func result() -> BuildResult {
        let graph = builder.graph
        let count = graph.nodes.count
        // Nodes that never ran: skipped when an upstream node failed, otherwise cancelled
        // before they started. Topological order makes every upstream outcome final here.
        if toBuild.contains(where: { records[$0].status == .pending }) {
            let now = builder.tracer.now
            var failedUpstream: [Int: [Int]] = [:]
            for slot in toBuild where records[slot].status == .pending {
                var roots = Set<Int>()
                for dependency in graph.nodes[slot].dependencies {
                    switch records[dependency].status {
                    case .failed: roots.insert(dependency)
                    case .skipped: roots.formUnion(failedUpstream[dependency, default: []])
                    default: break
                    }
                }
                let name = graph.nodes[slot].name
                records[slot].endedAt = now
                if roots.isEmpty {
                    records[slot].status = .cancelledBeforeStart
                    builder.emit(.nodeCancelled(node: name, phase: .beforeStart))
                } else {
                    let sortedRoots = roots.sorted()
                    failedUpstream[slot] = sortedRoots
                    let because = sortedRoots.map { graph.nodes[$0].name }
                    records.skipped(slot, because: because)
                    builder.emit(.nodeSkipped(node: name, because: because))
                }
            }
        }

        let report = BuildReport(
            generation: builder.generation, attempt: builder.attempt,
            records: records, names: graph.serviceNames[..<graph.builtCount], built: toBuild,
            startedAt: startedAt, endedAt: builder.tracer.now, wasCancelled: Task.isCancelled)
        // The snapshot's values, when every node has one: the external, kept and built slots
        // are disjoint, and the chunks this attempt did not write are shared, not copied.
        var complete: SlotValues?
        if report.failure == nil {
            let all = builder.external.merging(builder.kept).merging(built)
            if all.count == count { complete = all }
        }
        return BuildResult(
            report: report, built: built, values: complete,
            appGeneration: builder.appGeneration)
    }
}
