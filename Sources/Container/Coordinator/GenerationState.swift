/// One generation of a coordinator: its graph, the values it built (and carried over, and, for
/// a scope instance, the app values it uses), and what each node's attempts so far left: a
/// failure that blocks it (sticky, or until its next attempt is allowed), how many attempts and
/// provider runs it had.
///
/// A plain value. Every operation that ends values' lives returns them, so the coordinator
/// queues each for teardown exactly once.
struct GenerationState {
    /// Why a node without a value cannot be built now.
    struct Block {
        /// What a request that needs the node gets.
        let error: ContainerError
        /// Until `reset()` (a permanent failure, or every allowed attempt used).
        let sticky: Bool
        /// When its next attempt is allowed (time since the container was created).
        let allowedAt: Duration
    }

    /// The generation being built or published.
    private(set) var generation = 1
    /// The graph of the generation (a reload replaces it).
    private(set) var graph: ServiceGraph
    /// The nodes' last run times, shared by every build of ``graph``.
    private(set) var runTimes: NodeRunTimes
    /// Values of the generation, by slot: the graph's own, and its external app values.
    private(set) var values = SlotValues()
    /// Nodes that failed and may not be built now, by slot.
    private(set) var blocks: [Int: Block] = [:]
    /// Why each optional node that ended without a value in this generation has none (its
    /// outcome), by slot: what snapshots say about it.
    private(set) var absences: [Int: String] = [:]
    /// Attempts of each node in this generation, by slot (empty: none): builds that were to
    /// make it and did not (it failed, was skipped or cancelled).
    private(set) var attempts: [Int32] = []
    /// Provider runs of each node in this generation, by slot (empty: none yet).
    private(set) var runs: [Int32] = []
    /// Builds of this generation so far.
    private(set) var builds = 0

    init(graph: ServiceGraph, runTimes: NodeRunTimes? = nil) {
        self.graph = graph
        self.runTimes = runTimes ?? NodeRunTimes(count: graph.nodes.count)
    }

    /// The attempts `slot` had in this generation.
    func attempts(of slot: Int) -> Int { slot < attempts.count ? Int(attempts[slot]) : 0 }

    /// The provider runs `slot` had in this generation.
    func runs(of slot: Int) -> Int { slot < runs.count ? Int(runs[slot]) : 0 }

    /// Whether `slot` has a value.
    func hasValue(_ slot: Int) -> Bool { values.hasValue(slot) }

    /// Whether every node of the graph's own has a value.
    var isComplete: Bool { ownCount == graph.builtCount }

    /// How many of the graph's own nodes have a value.
    var ownCount: Int { values.count - externalCount }

    /// How many external values are present.
    private(set) var externalCount = 0
    /// The slots below the built count that have a value, as bits (words as ``SlotSet`` has
    /// them): made when a report first needs them in this generation (a build that left slots
    /// out), then kept as values are stored, and dropped when any value goes. A report shares
    /// the bits, not the values. One word in the state (a scope instance keeps one).
    private var valued: [UInt64]?

    /// Counts a new build of this generation; returns its attempt number.
    mutating func beginBuild() -> Int {
        builds += 1
        return builds
    }

    /// Stores a value made by a build (or, for an external slot, given by the app).
    mutating func store(_ box: AnyServiceBox, at slot: Int) {
        if slot >= graph.builtCount && !values.hasValue(slot) { externalCount += 1 }
        if slot < graph.builtCount { valued?[slot >> 6] |= 1 << UInt64(slot & 63) }
        values[slot] = box
        if !blocks.isEmpty { blocks[slot] = nil }
        if !absences.isEmpty { absences[slot] = nil }
    }

    /// The slots below the built count that have a value (see ``valued``), kept for the next.
    mutating func valuedSlots() -> SlotSet {
        valued = valuedWords
        return SlotSet(words: valuedWords)
    }

    /// ``valuedSlots()`` without keeping them (a report made outside a transition).
    func valuedSlotsNow() -> SlotSet { SlotSet(words: valuedWords) }

    /// The words of ``valued``, made from the values when there are none.
    private var valuedWords: [UInt64] {
        valued ?? values.presence(below: graph.builtCount, capacity: graph.nodes.count)
    }

    /// Optional node `slot` ended without a value, for `reason`.
    mutating func noteAbsence(of slot: Int, _ reason: String) {
        absences[slot] = reason
        absenceVersion &+= 1
    }

    /// Counts the changes of ``absences`` (a snapshot made before the last one is stale).
    private(set) var absenceVersion = 0

    /// Counts `count` provider runs of `slot`.
    mutating func countRuns(_ count: Int, of slot: Int) {
        guard count > 0 else { return }
        if runs.isEmpty { runs = [Int32](repeating: 0, count: graph.nodes.count) }
        runs[slot] += Int32(truncatingIfNeeded: count)
    }

    /// Counts an attempt of `slot` that left it without a value.
    mutating func countAttempt(of slot: Int) {
        if attempts.isEmpty { attempts = [Int32](repeating: 0, count: graph.nodes.count) }
        attempts[slot] += 1
    }

    /// Blocks `slot` (it failed) as `block` says.
    mutating func block(_ slot: Int, _ block: Block) { blocks[slot] = block }

    /// The block of `slot`, if it has one.
    func block(of slot: Int) -> Block? { blocks.isEmpty ? nil : blocks[slot] }

    /// What a new generation retires.
    struct Retired {
        /// The slots a reset invalidated (with or without a value), ascending.
        var invalidated: [Int] = []
        /// Slots of the old graph whose values are retired (own and external).
        var slots: [Int] = []
        /// The graph's own values to tear down.
        var values: [AnyServiceBox] = []
        /// External values (a scope instance's app values): released to the app, never torn down here.
        var external: [AnyServiceBox] = []
    }

    /// Starts the next generation of the same graph; `invalidated` slots and their dependents
    /// are retired (`nil`: all), the other values carry over.
    mutating func advance(invalidating invalidated: Set<Int>?) -> Retired {
        let slots = invalidated.map { graph.closure(ofDependentsOf: $0).sorted() } ?? Array(0..<graph.nodes.count)
        var retired = retire(slots)
        retired.invalidated = slots
        startGeneration()
        return retired
    }

    /// Starts the next generation on `newGraph` as `plan` says (a reload); `runTimes` are the new
    /// graph's.
    mutating func advance(to newGraph: ServiceGraph, plan: ReloadPlan, runTimes: NodeRunTimes) -> Retired {
        var retired = Retired()
        if let fromOld = plan.fromOld {
            var moved = SlotValues()
            var isCarried = [Bool](repeating: false, count: graph.nodes.count)
            for (newSlot, oldSlot) in fromOld.enumerated() where oldSlot >= 0 {
                guard let box = values[oldSlot] else { continue }
                moved[newSlot] = box
                isCarried[oldSlot] = true
            }
            retired = retire(values.keys.filter { !isCarried[$0] })
            values = moved
            // Only the graph's own values move: the external ones all went with `retire`.
            externalCount = 0
        } else {
            retired = retire(plan.rebuiltSlots)
        }
        graph = newGraph
        self.runTimes = runTimes
        startGeneration()
        return retired
    }

    /// Ends the values this generation built (its eager services can never be built now);
    /// values carried over from earlier generations stay.
    mutating func retireBuiltInThisGeneration() -> [AnyServiceBox] {
        let slots = values.keys.filter { $0 < graph.builtCount && values[$0]?.builtInGeneration == generation }
        return retire(slots).values
    }

    /// Ends every value (shutdown, close) without starting a generation.
    mutating func retireAll() -> Retired {
        let retired = retire(Array(0..<graph.nodes.count))
        blocks = [:]
        absences = [:]
        return retired
    }

    /// Takes the values of `slots` out.
    private mutating func retire(_ slots: [Int]) -> Retired {
        valued = nil
        var retired = Retired()
        for slot in slots {
            guard let box = values.removeValue(forKey: slot) else { continue }
            retired.slots.append(slot)
            if slot < graph.builtCount {
                retired.values.append(box)
            } else {
                retired.external.append(box)
                externalCount -= 1
            }
        }
        return retired
    }

    private mutating func startGeneration() {
        valued = nil
        generation += 1
        blocks = [:]
        absences = [:]
        attempts = []
        runs = []
        builds = 0
    }

    /// The names of `slots`, in slot order.
    func names(of slots: some Sequence<Int>) -> [String] {
        let names = graph.serviceNames
        return slots.sorted().map { names[$0] }
    }

    /// Broken invariants: values are of this graph's services and not from the future.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        values.forEach { slot, box in
            if slot >= graph.nodes.count || graph.nodes[slot].name != box.name {
                violations.append("value of \(box.name) kept in slot \(slot)")
            } else if slot < graph.builtCount && box.builtInGeneration > generation {
                violations.append("value of \(box.name) from a later generation")
            }
        }
        if externalCount != values.count - values.keys.count(where: { $0 < graph.builtCount }) {
            violations.append("the external values are miscounted")
        }
        return violations
    }
}
