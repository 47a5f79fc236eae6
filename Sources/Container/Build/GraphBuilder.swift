/// Builds one attempt of one generation: starts each node as soon as all its dependencies
/// have values, in a task group, and gives every node exactly one outcome (see <doc:CoordinatorRules>).
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
// `values` points to. Only the task running `run()` writes it, each slot at most once (never a
// slot of `kept`): the external values before any child task exists, a node's value when its result arrives. Only
// providers of nodes that declared a slot as a dependency read it, from a child task created after
// that slot was written (task creation orders the write before the read) or inline in the task
// running `run()` after it wrote the slot (program order), and no slot is written twice. The memory is freed in `deinit`, once no context refers to the builder.
final class GraphBuilder: @unchecked Sendable {
    let graph: ServiceGraph
    let generation: Int
    let attempt: Int
    /// Values kept from earlier attempts or generations, by slot.
    let kept: SlotValues
    /// The slots without a value in `kept`, ascending, when the coordinator knew them
    /// (``BuildTicket/missingSlots``); `nil`: found by a scan of `kept`.
    let missingSlots: [Int]?
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
        graph: ServiceGraph, generation: Int, attempt: Int, kept: SlotValues, missingSlots: [Int]? = nil,
        earlierRuns: [Int] = [],
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
        self.missingSlots = missingSlots
        self.policy = policy
        self.tracer = tracer
        self.redactor = redactor
        values = .allocate(capacity: graph.nodes.count)
        // Element by element: the bulk forms go through the element type's value witnesses.
        for slot in 0..<graph.nodes.count { (values + slot).initialize(to: nil) }
    }

    deinit {
        // Only the slots this attempt wrote hold a value (kept values are read in place).
        for slot in 0..<graph.nodes.count where values[slot] != nil { values[slot] = nil }
        values.deallocate()
    }

    /// The value of `slot`: for a provider's context, only a dependency of the node whose
    /// provider runs; for the ``BuildSchedule``, any slot (see the `Sendable` note above).
    /// A kept value is read from ``kept``: copying each into ``values`` (a retain, and a
    /// release when the builder goes) cost as much as the graph is large after a partial reset.
    func value(of slot: Int) -> AnyServiceBox? { values[slot] ?? kept[slot] }

    /// Whether `slot` has a value (see ``value(of:)``), without retaining it.
    func hasValue(_ slot: Int) -> Bool { values[slot] != nil || kept.hasValue(slot) }

    /// Runs the attempt: every node gets exactly one outcome.
    ///
    /// The frame of this async function holds the schedule and the group, nothing else: the
    /// work around each result is synchronous (``BuildSchedule``), on the thread's stack. A node
    /// that is the only one able to run runs here, in the build's task, rather than in a child.
    func run() async -> BuildResult {
        var schedule = BuildSchedule(builder: self)
        await withTaskGroup(of: NodeResult.self) { group in
            var inline = schedule.launchReady(in: &group)
            while true {
                if let slot = inline {
                    emit(.nodeStarted(node: graph.nodes[slot].name))
                    inline = schedule.finished(await runNode(slot), in: &group)
                } else if let result = await group.next() {
                    inline = schedule.finished(result, in: &group)
                } else {
                    break
                }
            }
        }
        return schedule.result()
    }

    /// Stores the value of `slot` (see the `Sendable` note above: only ``BuildSchedule``, in the
    /// task running ``run()``, calls it, once per slot, before launching a reader of the slot).
    func setValue(_ box: AnyServiceBox?, of slot: Int) { values[slot] = box }

    /// Starts `slot`'s provider in a child task.
    func launch(_ slot: Int, in group: inout TaskGroup<NodeResult>) {
        emit(.nodeStarted(node: graph.nodes[slot].name))
        group.addTask { await self.runNode(slot) }
    }
}
