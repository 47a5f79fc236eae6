/// Builds one attempt of one generation: starts each node as soon as all its dependencies
/// have values, in a task group, and gives every node exactly one outcome (DESIGN §3).
///
/// Values are assembled locally and handed back in a ``BuildResult``; the builder never
/// publishes anything. Nodes whose values were kept from an earlier attempt or generation
/// are reused, not rebuilt.
///
/// A class: every node's child task captures the builder, and capturing one reference costs
/// one retain where a struct would copy (and retain) each of its fields into every task. The
/// providers' contexts read their dependencies from the builder's ``values`` as well, so a
/// node's launch allocates nothing but its task.
// Sendable: every stored property is an immutable `let` of a Sendable type, except the memory
// `values` points to. Only the task running `run()` writes it, each slot at most once: the kept
// and external values before any child task exists, a node's value when its result arrives. Only
// providers of nodes that declared a slot as a dependency read it, from a child task created after
// that slot was written (task creation orders the write before the read), and no slot is written
// twice. The memory is freed in `deinit`, once no context refers to the builder.
final class GraphBuilder: @unchecked Sendable {
    let graph: ServiceGraph
    let generation: Int
    let attempt: Int
    /// Values kept from earlier attempts or generations, by slot.
    let kept: SlotValues
    /// Provider runs of earlier attempts of this generation, by slot (empty: none).
    let earlierRuns: [Int]
    let policy: BuildPolicy
    let tracer: Tracer
    let redactor: Redactor
    /// A scope part's external values: the app services it uses, from the app snapshot, by slot.
    let external: SlotValues
    /// The scope instance being built (`nil`: the app), for the trace and the providers.
    let scopeInstance: String?
    let parameters: ScopeParameters
    /// The app generation `external` comes from.
    let appGeneration: Int?
    /// Every node's value so far, by slot (see the `Sendable` note above).
    private let values: UnsafeMutablePointer<AnyServiceBox?>

    init(
        graph: ServiceGraph, generation: Int, attempt: Int, kept: SlotValues, earlierRuns: [Int] = [],
        policy: BuildPolicy, tracer: Tracer, redactor: Redactor, external: SlotValues = SlotValues(),
        scopeInstance: String? = nil, parameters: ScopeParameters = .init(), appGeneration: Int? = nil
    ) {
        self.appGeneration = appGeneration
        self.external = external
        self.scopeInstance = scopeInstance
        self.parameters = parameters
        self.earlierRuns = earlierRuns
        self.graph = graph
        self.generation = generation
        self.attempt = attempt
        self.kept = kept
        self.policy = policy
        self.tracer = tracer
        self.redactor = redactor
        values = .allocate(capacity: graph.nodes.count)
        // Element by element: the bulk forms go through the element type's value witnesses.
        for slot in 0..<graph.nodes.count { (values + slot).initialize(to: nil) }
    }

    deinit {
        for slot in 0..<graph.nodes.count { values[slot] = nil }
        values.deallocate()
    }

    /// The value of `slot`, for a provider's context: call it only for a dependency of the node
    /// whose provider runs (see the `Sendable` note above).
    func value(of slot: Int) -> AnyServiceBox? { values[slot] }

    func run() async -> BuildResult {
        let count = graph.nodes.count
        // `build.started` was stamped by the coordinator when it launched this build.
        let startedAt = tracer.now

        var records = BuildRecords(count: count)
        // What this attempt makes: kept or torn down by the coordinator.
        var built = [AnyServiceBox?](unsafeUninitializedCapacity: graph.builtCount) { buffer, initialized in
            for slot in buffer.indices { buffer.initializeElement(at: slot, to: nil) }
            initialized = buffer.count
        }
        var builtCount = 0
        // The app services a scope uses: present from the start, never built, kept or traced here.
        for (slot, box) in external.slotsAndValues {
            values[slot] = box
            records[slot].status = .reused
        }
        if !kept.isEmpty {
            // In graph order, so traces of the same graph read the same way every time.
            for slot in graph.topologicalOrder {
                guard let box = kept[slot] else { continue }
                values[slot] = box
                records[slot].status = .reused
                emit(.nodeReused(node: graph.nodes[slot].name))
            }
        }
        // Dependencies still without a value, per node.
        var waitingOn =
            kept.isEmpty && external.isEmpty
            ? graph.nodes.map { Int32(truncatingIfNeeded: $0.dependencies.count) }
            : graph.nodes.map { node in Int32(truncatingIfNeeded: node.dependencies.count { values[$0] == nil }) }

        let dependents = graph.dependents
        await withTaskGroup(of: NodeResult.self) { group in
            var stopped = false
            for slot in graph.topologicalOrder where records[slot].status == .pending && waitingOn[slot] == 0 {
                launch(slot, in: &group)
            }

            while let result = await group.next() {
                let slot = result.slot
                // Read only for a trace event: untraced, the node (a cache miss in a large
                // graph) is not visited again.
                var name: String { graph.nodes[slot].name }
                records[slot] = BuildRecords.Record(
                    status: result.status, runs: result.runs, startedAt: result.startedAt, endedAt: result.endedAt)
                switch result.status {
                case .succeeded:
                    emit(.nodeSucceeded(node: name, duration: result.endedAt - result.startedAt))
                    values[slot] = result.box
                    built[slot] = result.box
                    builtCount += 1
                    // A dependent whose last missing dependency this was can start now,
                    // unless the build is winding down (reset, or fail-fast after a failure).
                    for dependent in dependents[slot] {
                        waitingOn[dependent] -= 1
                        guard waitingOn[dependent] == 0 else { continue }
                        stopped = stopped || Task.isCancelled
                        if !stopped { launch(dependent, in: &group) }
                    }
                case .failed:
                    guard let failure = result.failure else { preconditionFailure("a failed run carries its failure") }
                    records.failed(slot, failure)
                    emit(.nodeFailed(node: name, failure: failure.kind, error: failure.message))
                    if policy.failureMode == .failFast && !stopped {
                        stopped = true
                        group.cancelAll()
                    }
                case .cancelledWhileRunning:
                    emit(.nodeCancelled(node: name, phase: .whileRunning))
                case .pending, .reused, .cancelledBeforeStart, .skipped:
                    preconditionFailure("a node run cannot end \(result.status)")
                }
            }
        }

        // Nodes that never ran: skipped when an upstream node failed, otherwise cancelled
        // before they started. Topological order makes every upstream outcome final here.
        if records.hasPending {
            let now = tracer.now
            var failedUpstream = [[Int]](repeating: [], count: count)
            for slot in graph.topologicalOrder where records[slot].status == .pending {
                var roots = Set<Int>()
                for dependency in graph.nodes[slot].dependencies {
                    switch records[dependency].status {
                    case .failed: roots.insert(dependency)
                    case .skipped: roots.formUnion(failedUpstream[dependency])
                    default: break
                    }
                }
                let name = graph.nodes[slot].name
                records[slot].endedAt = now
                if roots.isEmpty {
                    records[slot].status = .cancelledBeforeStart
                    emit(.nodeCancelled(node: name, phase: .beforeStart))
                } else {
                    failedUpstream[slot] = roots.sorted()
                    let because = failedUpstream[slot].map { graph.nodes[$0].name }
                    records.skipped(slot, because: because)
                    emit(.nodeSkipped(node: name, because: because))
                }
            }
        }

        let report = BuildReport(
            generation: generation, attempt: attempt,
            nodes: records.reports(names: graph.serviceNames[..<graph.builtCount]),
            startedAt: startedAt, endedAt: tracer.now, wasCancelled: Task.isCancelled)
        // The snapshot's values, when every node has one.
        var complete: ContiguousArray<AnyServiceBox>?
        if report.failure == nil {
            complete = ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
                for slot in 0..<count {
                    guard let box = values[slot] else { break }
                    buffer.initializeElement(at: slot, to: box)
                    initialized += 1
                }
            }
            if complete?.count != count { complete = nil }
        }
        return BuildResult(
            report: report, built: SlotValues(built, count: builtCount), values: complete, appGeneration: appGeneration)
    }

    /// Starts `slot`'s provider in a child task.
    private func launch(_ slot: Int, in group: inout TaskGroup<NodeResult>) {
        emit(.nodeStarted(node: graph.nodes[slot].name))
        group.addTask { await self.runNode(slot) }
    }
}
