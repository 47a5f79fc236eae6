/// The callers waiting for the build, grouped by what they asked for (a **demand**): a demand
/// is answered once every node of its dependency closure has settled in the build, with the
/// snapshot when all of them have values, with the failure otherwise.
///
/// Callers that ask for the same thing (every `start()`, say) share one demand, so a thousand
/// joiners cost one closure. A plain value, generic over the waiter so tests drive it with
/// integers.
struct DemandBook<Waiter> {
    /// What a demand asks for.
    enum Key: Hashable {
        /// The eager services (`start()`).
        case eager
        /// The eager and the deferred services (`startDeferred()`).
        case deferred
        /// These slots and their dependencies, ascending.
        case roots([Int])
        /// The services of these names and their dependencies: made `roots` in the critical
        /// section of the request (a name the graph lacks is left out), never kept in the book.
        case names([String])
    }

    /// Callers waiting for one closure.
    struct Demand {
        let key: Key
        /// The closure's slots: the nodes whose settling this demand counts.
        let closure: SlotSet
        /// The part of the closure whose failure fails the demand: reached without passing an
        /// optional service (the closure itself when the graph has none).
        let required: SlotSet
        /// Nodes of the closure that have not settled yet.
        var pending: Int
        /// Whether a node of the closure ended without a value.
        var failed = false
        var callers = CallerRegistry<Waiter>()
        /// The highest priority among its callers (a `TaskPriority.rawValue`).
        var priority: UInt8

        /// A demand with no caller yet; `required` defaults to the whole closure.
        init(key: Key, closure: SlotSet, required: SlotSet? = nil, pending: Int, priority: UInt8) {
            self.key = key
            self.closure = closure
            self.required = required ?? closure
            self.pending = pending
            self.priority = priority
        }
    }

    private(set) var demands: [Demand] = []

    /// How many callers wait, all demands together.
    var waitingCallers: Int { demands.reduce(0) { $0 + $1.callers.count } }

    var isEmpty: Bool { demands.isEmpty }

    /// The highest priority any caller waits at, if one does.
    var priority: UInt8? { demands.map(\.priority).max() }

    /// The highest priority of the demands whose closure holds `slot` (0 when none does):
    /// what the callers waiting for that node wait at. Stops at `ceiling`, the highest of all.
    func priority(of slot: Int, ceiling: UInt8) -> UInt8 {
        var highest: UInt8 = 0
        // By index: a demand is large, and a loop over the values would copy (retain) each.
        for index in demands.indices where demands[index].priority > highest {
            guard demands[index].closure.contains(slot) else { continue }
            highest = demands[index].priority
            if highest >= ceiling { break }
        }
        return highest
    }

    /// The demand for `key`, if callers already wait for it.
    func index(of key: Key) -> Int? { demands.firstIndex { $0.key == key } }

    /// Adds a demand; returns its index.
    mutating func add(_ demand: Demand) -> Int {
        demands.append(demand)
        return demands.count - 1
    }

    /// Parks a caller on demand `index`; returns whether it raised the demand's priority.
    mutating func park(_ entry: CallerRegistry<Waiter>.Entry, at index: Int, priority: UInt8) -> Bool {
        demands[index].callers.park(entry)
        guard priority > demands[index].priority else { return false }
        demands[index].priority = priority
        return true
    }

    /// Takes a cancelled caller out; `nil` when it is not parked (already answered). A demand
    /// left without callers goes: nobody waits for it (its nodes go on building).
    mutating func remove(caller: Int) -> CallerRegistry<Waiter>.Entry? {
        for index in demands.indices {
            guard let entry = demands[index].callers.remove(caller) else { continue }
            if demands[index].callers.isEmpty { demands.remove(at: index) }
            return entry
        }
        return nil
    }

    /// Raises every demand's priority to at least `priority` (a caller was raised).
    mutating func raise(to priority: UInt8) {
        for index in demands.indices where demands[index].priority < priority { demands[index].priority = priority }
    }

    /// Node `slot` settled (with a value, or `failed`); returns the demands it completed, in
    /// the order they were made, taken out of the book.
    mutating func settled(_ slot: Int, failed: Bool) -> [Demand] {
        var completed: [Demand] = []
        var index = 0
        while index < demands.count {
            if demands[index].closure.contains(slot) {
                demands[index].pending -= 1
                if failed && demands[index].required.contains(slot) { demands[index].failed = true }
                if demands[index].pending == 0 {
                    completed.append(demands.remove(at: index))
                    continue
                }
            }
            index += 1
        }
        return completed
    }

    /// Takes out the demands with nothing pending (their closure settled before they joined).
    mutating func takeSettled() -> [Demand] {
        let settled = demands.filter { $0.pending == 0 }
        if !settled.isEmpty { demands.removeAll { $0.pending == 0 } }
        return settled
    }

    /// Takes every demand out (a reset or shutdown ends them).
    mutating func removeAll() -> [Demand] {
        defer { demands = [] }
        return demands
    }

    /// Broken invariants.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        for demand in demands {
            violations += demand.callers.invariantViolations()
            if demand.callers.isEmpty { violations.append("a demand \(demand.key) without callers") }
            if demand.pending <= 0 { violations.append("a settled demand \(demand.key) still waits") }
        }
        if Set(demands.map(\.key)).count != demands.count { violations.append("two demands for the same key") }
        return violations
    }
}
