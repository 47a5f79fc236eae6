/// The callers waiting for the build, grouped by what they asked for (a **demand**): a demand
/// is answered once every node it waits for has settled in the build, with the snapshot when
/// all of them have values, with the failure otherwise.
///
/// A demand waits for the nodes of its dependency closure the build had not settled when it
/// was made; a request may name only the first members of the build it meets, as a member
/// settles after every node below it (see the Demand-driven start-up article). Callers that ask
/// for the same thing (every `start()`, say) share one demand, so a thousand joiners cost one
/// closure. A plain value, generic over the waiter so tests drive it with integers.
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
        /// `found`: their slots as the caller looked them up before asking, taken while the
        /// graph keeps that layout (the critical section then hashes no name).
        case names([String], found: Lookup? = nil)
    }

    /// The slots of a request's names in the layout of id `layout`, ascending, each once.
    struct Lookup: Hashable {
        let layout: UInt32
        let roots: [Int]

        init(layout: UInt32, slots: [Int]) {
            self.layout = layout
            var roots: [Int] = []
            roots.reserveCapacity(slots.count)
            for slot in slots.sorted() where roots.last != slot { roots.append(slot) }
            self.roots = roots
        }

        /// The roots, when they were looked up in `layout` (never in one without an id of its own).
        func roots(in layout: ServiceLayout) -> [Int]? {
            self.layout == layout.id && layout.id != ServiceLayout.uncached ? roots : nil
        }
    }

    /// Callers waiting for one closure.
    struct Demand {
        let key: Key
        /// The part of the closure whose failure fails the demand (reached without passing an
        /// optional service), when the graph has optional services; `nil`: the whole closure.
        let required: SlotSet?
        /// Nodes it waits for that have not settled yet.
        var pending = 0
        /// Whether a node of the closure ended without a value.
        var failed = false
        var callers = CallerRegistry<Waiter>()
        /// The highest priority among its callers (a `TaskPriority.rawValue`).
        var priority: UInt8
        /// Answered or left: the book keeps its place (its id) until it starts afresh.
        fileprivate var isGone = false

        /// A demand with no caller yet, waiting for nothing yet (see ``DemandBook/add(_:waitingFor:)``).
        init(key: Key, required: SlotSet? = nil, priority: UInt8) {
            self.key = key
            self.required = required
            self.priority = priority
        }

        /// Whether a failure of `slot` fails the demand.
        func requires(_ slot: Int) -> Bool { required?.contains(slot) ?? true }
    }

    /// The demands by id, in the order they were made (those gone keep their place).
    private var entries: [Demand] = []
    /// How many entries are not gone.
    private var live: Int32 = 0
    /// Per slot, its newest wait (`-1`: none), for `slotCapacity` slots; then the waits, each a
    /// demand's id and the next older wait for the same slot (`-1`: none), wait `w` at
    /// `slotCapacity + 2 * w`. A node's end visits only the demands waiting for it, however many
    /// others wait. One array, so a build's first demand allocates one more than it used to.
    private var links: [Int32] = []
    private var slotCapacity: Int32 = 0
    /// The slots whose wait list a demand joined since the book started afresh: it resets only
    /// these, and keeps the heads for the next demands (a request for a few nodes of a large
    /// graph then writes a few heads, not one per slot up to its highest).
    private var linked: [Int32] = []

    /// The fewest heads a book keeps when it starts afresh: making fewer costs less than keeping them.
    private static var keptHeads: Int32 { 256 }

    /// The demands waiting, in the order they were made.
    var demands: [Demand] { entries.filter { !$0.isGone } }

    /// How many callers wait, all demands together.
    var waitingCallers: Int { entries.reduce(0) { $0 + $1.callers.count } }

    var isEmpty: Bool { live == 0 }

    /// The highest priority any caller waits at, if one does.
    var priority: UInt8? { entries.lazy.filter { !$0.isGone }.map(\.priority).max() }

    /// The highest priority of the demands waiting for `slot` itself (0 when none does).
    func priority(waitingFor slot: Int) -> UInt8 {
        guard slot < Int(slotCapacity) else { return 0 }
        let base = Int(slotCapacity)
        var highest: UInt8 = 0
        var wait = Int(links[slot])
        while wait >= 0 {
            let index = Int(links[base + 2 * wait])
            wait = Int(links[base + 2 * wait + 1])
            if !entries[index].isGone && entries[index].priority > highest { highest = entries[index].priority }
        }
        return highest
    }

    /// The demand for `key`, if callers already wait for it.
    func index(of key: Key) -> Int? { entries.firstIndex { !$0.isGone && $0.key == key } }

    /// Adds `demand`, waiting for the slots of `slots` and of `more` (each once, none settled
    /// yet); returns its index.
    mutating func add(_ demand: Demand, waitingFor slots: [Int], _ more: [Int] = []) -> Int {
        let id = entries.count
        entries.append(demand)
        entries[id].pending = slots.count + more.count
        live += 1
        // Room for every slot at once (a first demand's slots come in no particular order).
        var highest = -1
        for slot in slots where slot > highest { highest = slot }
        for slot in more where slot > highest { highest = slot }
        let heads = Int(slotCapacity)
        let (capacity, count) = (max(heads, highest + 1), slots.count + more.count)
        // The waits made so far: what follows the heads.
        let first = (links.count - heads) / 2
        let keeps = capacity >= Self.keptHeads
        if links.isEmpty {
            // A build's first demand: made at once, filled the fast way.
            links = [Int32](repeating: -1, count: capacity + 2 * count)
        } else {
            let needed = capacity + 2 * (first + count)
            if needed > links.capacity { links.reserveCapacity(max(needed, 2 * links.capacity)) }
            // Kept from now on: the heads set before are listed too (fewer than the kept ones).
            if keeps && heads < Self.keptHeads {
                for slot in 0..<heads where links[slot] >= 0 { linked.append(Int32(truncatingIfNeeded: slot)) }
            }
            if capacity > heads { links.insert(contentsOf: repeatElement(-1, count: capacity - heads), at: heads) }
            links.append(contentsOf: repeatElement(-1, count: 2 * count))
        }
        slotCapacity = Int32(truncatingIfNeeded: capacity)
        let base = capacity
        // Linked through the buffer: one uniqueness check, not one per write.
        links.withUnsafeMutableBufferPointer { links in
            var wait = first
            func link(_ slot: Int) {
                if keeps && links[slot] < 0 { linked.append(Int32(truncatingIfNeeded: slot)) }
                links[base + 2 * wait] = Int32(truncatingIfNeeded: id)
                links[base + 2 * wait + 1] = links[slot]
                links[slot] = Int32(truncatingIfNeeded: wait)
                wait += 1
            }
            for slot in slots { link(slot) }
            for slot in more { link(slot) }
        }
        return id
    }

    /// Parks a caller on demand `index`; returns whether it raised the demand's priority.
    mutating func park(_ entry: CallerRegistry<Waiter>.Entry, at index: Int, priority: UInt8) -> Bool {
        entries[index].callers.park(entry)
        guard priority > entries[index].priority else { return false }
        entries[index].priority = priority
        return true
    }

    /// Takes a cancelled caller out; `nil` when it is not parked (already answered). A demand
    /// left without callers goes: nobody waits for it (its nodes go on building).
    mutating func remove(caller: Int) -> CallerRegistry<Waiter>.Entry? {
        for index in entries.indices where !entries[index].isGone {
            guard let entry = entries[index].callers.remove(caller) else { continue }
            if entries[index].callers.isEmpty {
                _ = take(index)
                startAfreshIfEmpty()
            }
            return entry
        }
        return nil
    }

    /// Raises every demand's priority to at least `priority` (a caller was raised).
    mutating func raise(to priority: UInt8) {
        for index in entries.indices where !entries[index].isGone && entries[index].priority < priority {
            entries[index].priority = priority
        }
    }

    /// Node `slot` settled (with a value, or `failed`); returns the demands it completed, in
    /// the order they were made, taken out of the book.
    mutating func settled(_ slot: Int, failed: Bool) -> [Demand] {
        guard slot < Int(slotCapacity), links[slot] >= 0 else { return [] }
        let base = Int(slotCapacity)
        var completed: [Demand] = []
        var wait = Int(links[slot])
        links[slot] = -1
        // Newest first: the completed ones are reversed at the end, into the order made.
        while wait >= 0 {
            let index = Int(links[base + 2 * wait])
            wait = Int(links[base + 2 * wait + 1])
            // A demand whose callers all left is gone; its waits stay behind.
            guard !entries[index].isGone else { continue }
            entries[index].pending -= 1
            if failed && entries[index].requires(slot) { entries[index].failed = true }
            if entries[index].pending == 0 { completed.append(take(index)) }
        }
        startAfreshIfEmpty()
        if completed.count > 1 { completed.reverse() }
        return completed
    }

    /// Takes out the demands with nothing pending (their closure settled before they joined).
    mutating func takeSettled() -> [Demand] {
        var settled: [Demand] = []
        for index in entries.indices where !entries[index].isGone && entries[index].pending == 0 {
            settled.append(take(index))
        }
        startAfreshIfEmpty()
        return settled
    }

    /// Takes every demand out (a reset or shutdown ends them).
    mutating func removeAll() -> [Demand] {
        defer { self = DemandBook() }
        return demands
    }

    /// Takes demand `index` out (its waits stay until ``startAfreshIfEmpty()``).
    private mutating func take(_ index: Int) -> Demand {
        live -= 1
        let demand = entries[index]
        // Its callers go with it; the place keeps the key (a tombstone, until the book starts afresh).
        entries[index].callers = CallerRegistry()
        entries[index].isGone = true
        return demand
    }

    /// Once no demand is left, forgets the ids and waits (ids then start at 0 again). The heads
    /// of a large graph are kept, reset to none, with the room of the demands and waits; a
    /// small graph's storage goes (a scope instance keeps nothing for its next request).
    private mutating func startAfreshIfEmpty() {
        guard live == 0 && !entries.isEmpty else { return }
        guard slotCapacity >= Self.keptHeads else {
            self = DemandBook()
            return
        }
        entries.removeAll(keepingCapacity: true)
        let heads = Int(slotCapacity)
        links.withUnsafeMutableBufferPointer { links in
            for slot in linked { links[Int(slot)] = -1 }
        }
        links.removeSubrange(heads...)
        linked.removeAll(keepingCapacity: true)
    }

    /// Broken invariants.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        for demand in demands {
            violations += demand.callers.invariantViolations()
            if demand.callers.isEmpty { violations.append("a demand \(demand.key) without callers") }
            if demand.pending <= 0 { violations.append("a settled demand \(demand.key) still waits") }
        }
        if Int(live) != demands.count { violations.append("\(live) demands counted, \(demands.count) kept") }
        if Set(demands.map(\.key)).count != demands.count { violations.append("two demands for the same key") }
        // A book that started afresh (a kept one too) leaves no slot waited for. Checked only
        // then: the check reads every head, and runs after every event of a debug build.
        if entries.isEmpty {
            for slot in 0..<min(Int(slotCapacity), links.count) where links[slot] >= 0 {
                violations.append("an empty book still has slot \(slot) waited for")
            }
        }
        return violations
    }
}
