/// The values of the current generation that outlive one build attempt: those kept after a
/// transient failure for the next attempt (rule 3 of <doc:CoordinatorRules>), carried over by a
/// partial reset or a reload (<doc:Reload>), and the provider runs each node has had in the generation.
///
/// A plain value. Every operation that ends values' lives returns them, so the coordinator
/// queues each for teardown exactly once.
struct GenerationValues {
    /// The generation being built or published.
    private(set) var generation = 1
    /// The graph of the generation (a reload replaces it).
    private(set) var graph: ServiceGraph
    /// Values of the generation, by slot of `graph`.
    private(set) var kept = SlotValues()
    /// Provider runs of each node in the generation's finished attempts, by slot (empty: none yet).
    private(set) var runs: [Int] = []
    /// The slots of the graph's own services without a value, ascending, while they are known
    /// and at most ``fewMissing`` (`nil` otherwise): what a partial reset or a reload of a few
    /// services leaves to build, so the build need not scan every slot for it. Read through
    /// ``missingSlots``.
    private var missing: [Int]?

    /// The most slots ``missingSlots`` lists.
    static let fewMissing = 64

    init(graph: ServiceGraph) { self.graph = graph }

    /// The slots of the graph's own services without a value, ascending, when few and known;
    /// checked against the number of values kept (a stale list is never handed out).
    var missingSlots: [Int]? {
        guard let missing, missing.count == graph.builtCount - kept.count else { return nil }
        return missing
    }

    /// `missing` with `slots` added, while it stays known and few.
    private func missing(adding slots: some Collection<Int>) -> [Int]? {
        guard let missing, missing.count + slots.count <= Self.fewMissing else { return nil }
        return Set(missing).union(slots.lazy.filter { $0 < graph.builtCount }).sorted()
    }

    /// Keeps what an attempt made and counts its runs.
    mutating func keep(_ built: SlotValues, report: BuildReport) {
        // The first attempt of a generation shares the attempt's chunks; a later one (or the
        // build after a partial reset) copies the chunks it wrote and shares the others.
        kept = kept.merging(built)
        // A build that succeeded leaves nothing missing; a failed one, what it did not make.
        missing = report.succeeded ? [] : missing?.filter { !built.hasValue($0) }
        // Runs are read only by a later attempt of this generation, and a generation whose
        // build succeeded has none: counting them would cost an array per ready generation.
        guard !report.succeeded else { return }
        if runs.isEmpty { runs = [Int](repeating: 0, count: report.nodeCount) }
        for (slot, count) in report.runsBySlot { runs[slot] += count }
    }

    /// Ends the values this generation built (a permanent failure: nothing can use them any
    /// more); values carried over from earlier generations stay.
    mutating func retireBuiltInThisGeneration() -> [AnyServiceBox] {
        var retired: [AnyServiceBox] = []
        for (slot, box) in kept.slotsAndValues where box.builtInGeneration == generation {
            kept[slot] = nil
            retired.append(box)
        }
        missing = nil
        return retired
    }

    /// Starts the next generation of the same graph; `invalidated` slots and their dependents
    /// are retired (`nil`: all), the other values carry over. Returns the retired slots and values.
    mutating func advance(invalidating invalidated: Set<Int>?) -> (slots: Set<Int>, values: [AnyServiceBox]) {
        let slots = invalidated.map { graph.closure(ofDependentsOf: $0) } ?? Set(0..<graph.builtCount)
        var values: [AnyServiceBox] = []
        if invalidated == nil {
            values = kept.removeAll()
            missing = nil
        } else {
            for slot in slots { if let box = kept.removeValue(forKey: slot) { values.append(box) } }
            missing = missing(adding: slots)
        }
        generation += 1
        runs = []
        return (slots, values)
    }

    /// Starts the next generation on `newGraph` as `plan` says; returns the retired values.
    mutating func advance(to newGraph: ServiceGraph, plan: ReloadPlan) -> [AnyServiceBox] {
        if let fromOld = plan.fromOld { return advance(to: newGraph, carrying: fromOld) }
        defer {
            graph = newGraph
            generation += 1
            runs = []
        }
        // The same services in the same slots: what is missing now is what was, and the rebuilt.
        missing = missing(adding: plan.rebuiltSlots)
        // Every carried value keeps its slot: only the rebuilt slots are visited.
        return plan.rebuiltSlots.compactMap { kept.removeValue(forKey: $0) }
    }

    /// Starts the next generation on `newGraph`: the values of `carried` (by new slot, its old
    /// slot, or -1) move to their new slots, every other value is retired and returned.
    mutating func advance(to newGraph: ServiceGraph, carrying carried: [Int]) -> [AnyServiceBox] {
        defer {
            graph = newGraph
            generation += 1
            runs = []
            missing = nil
        }
        // The usual reload keeps every service in its slot: only the retired slots are written.
        if let retired = kept.removeAllInPlace(except: carried) { return retired }
        // Read, not emptied, slot by slot: `kept` may share its array (with the last attempt's
        // result), and a write would copy it first.
        var moved = [AnyServiceBox?](repeating: nil, count: carried.count)
        var isCarried = [Bool](repeating: false, count: graph.nodes.count)
        for (newSlot, oldSlot) in carried.enumerated() where oldSlot >= 0 {
            guard let box = kept[oldSlot] else { continue }
            moved[newSlot] = box
            isCarried[oldSlot] = true
        }
        var retired: [AnyServiceBox] = []
        kept.forEach { slot, box in if !isCarried[slot] { retired.append(box) } }
        kept = SlotValues(moved)
        return retired
    }

    /// Ends every value (shutdown, close).
    mutating func retireAll() -> [AnyServiceBox] {
        missing = nil
        return kept.removeAll()
    }

    /// The names of the services this graph builds (a scope part's external app services aside).
    var builtNames: [String] { Array(graph.serviceNames[..<graph.builtCount]) }

    /// The names of `slots`, in slot order.
    func names(of slots: some Sequence<Int>) -> [String] { names(ofAscending: slots.sorted()) }

    /// The names of `slots`, already in slot order (from the layout's array of names: no visit
    /// to each node, a cache miss per slot in a large graph).
    func names(ofAscending slots: [Int]) -> [String] {
        let names = graph.serviceNames
        return slots.map { names[$0] }
    }

    /// Broken invariants: kept values are of this graph's services and not from the future.
    func invariantViolations() -> [String] {
        kept.slotsAndValues.compactMap { slot, box in
            if slot >= graph.nodes.count || graph.nodes[slot].name != box.name {
                return "value of \(box.name) kept in slot \(slot)"
            }
            return box.builtInGeneration > generation ? "value of \(box.name) from a later generation" : nil
        }
    }
}
