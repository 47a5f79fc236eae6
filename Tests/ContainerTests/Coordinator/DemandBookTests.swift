import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// The callers waiting for a build, grouped by demand, as a value driven with integer waiters
/// (STYLE rule 12).
@Suite("Demand book as a value")
struct DemandBookTests {
    typealias Book = DemandBook<Int>

    /// Caller `id`, waiter `id * 10`, named `c<id>`.
    static func entry(_ id: Int) -> CallerRegistry<Int>.Entry { .init(id: id, label: "c\(id)", waiter: id * 10) }

    /// Adds a demand for `key` waiting for the slots `waiting`, parked on by `callers` (the
    /// first makes it, as in the state machine); returns its index.
    @discardableResult
    static func add(
        _ book: inout Book, _ key: Book.Key, waiting: [Int], callers: [Int], priority: UInt8 = 21
    ) -> Int {
        var demand = Book.Demand(key: key, priority: priority)
        if let first = callers.first { demand.callers.park(entry(first)) }
        let index = book.add(demand, waitingFor: waiting)
        for caller in callers.dropFirst() { _ = book.park(entry(caller), at: index, priority: priority) }
        return index
    }

    /// The waiters of `demands`, each demand's in arrival order.
    static func waiters(_ demands: [Book.Demand]) -> [[Int]] {
        demands.map { demand in
            var callers = demand.callers
            return callers.removeAll(named: false).waiters
        }
    }

    static func expectValid(_ book: Book, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(book.invariantViolations().isEmpty, "\(book.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test("An empty book has no demands, callers or priority")
    func empty() {
        var book = Book()
        #expect(book.isEmpty && book.demands.isEmpty && book.waitingCallers == 0 && book.priority == nil)
        let removed = book.remove(caller: 1)
        #expect(book.index(of: .eager) == nil && removed == nil)
        let (settled, taken, all) = (book.settled(0, failed: false), book.takeSettled(), book.removeAll())
        #expect(settled.isEmpty && taken.isEmpty && all.isEmpty)
        book.raise(to: 30)
        #expect(book.priority == nil)
        Self.expectValid(book)
    }

    @Test("A large graph's book starts afresh with its heads kept and reset: no wait of an earlier demand is left")
    func keptHeads() {
        var book = Book()
        // A small first demand, then one past the kept heads: the earlier heads are listed too.
        Self.add(&book, .roots([3]), waiting: [3], callers: [1])
        Self.add(&book, .roots([400]), waiting: [400, 5], callers: [2])
        // Their callers leave before the nodes settle: the book empties with heads still set.
        _ = book.remove(caller: 1)
        _ = book.remove(caller: 2)
        #expect(book.isEmpty)
        Self.expectValid(book)
        Self.add(&book, .roots([7]), waiting: [7], callers: [3])
        #expect(book.settled(3, failed: false).isEmpty && book.settled(400, failed: false).isEmpty)
        #expect(book.settled(5, failed: false).isEmpty)
        #expect(book.priority(waitingFor: 3) == 0 && book.priority(waitingFor: 400) == 0)
        #expect(Self.waiters(book.settled(7, failed: false)) == [[30]])
        // Settled, then again: a kept book answers as a new one.
        Self.add(&book, .roots([300]), waiting: [300, 2], callers: [4])
        #expect(book.settled(2, failed: false).isEmpty)
        #expect(Self.waiters(book.settled(300, failed: false)) == [[40]])
        Self.add(&book, .roots([2]), waiting: [2], callers: [5])
        #expect(book.settled(300, failed: false).isEmpty)
        #expect(Self.waiters(book.settled(2, failed: false)) == [[50]])
        Self.expectValid(book)
    }

    @Test("Demands are found by key; callers of one key share a demand")
    func byKey() {
        var book = Book()
        Self.add(&book, .eager, waiting: [0, 1, 2], callers: [1])
        Self.add(&book, .roots([1, 3]), waiting: [0, 1, 3], callers: [2, 3])
        #expect(book.index(of: .eager) == 0 && book.index(of: .roots([1, 3])) == 1)
        #expect(book.index(of: .roots([3])) == nil && book.index(of: .roots([3, 1])) == nil, "keys are exact")
        _ = book.park(Self.entry(4), at: 0, priority: 21)
        #expect(book.waitingCallers == 4 && book.demands.map(\.callers.count) == [2, 2])
        #expect(book.demands.map(\.pending) == [3, 3] && book.demands.allSatisfy { !$0.failed })
        #expect(book.demands.map(\.key) == [.eager, .roots([1, 3])], "in the order made")
        Self.expectValid(book)
        let all = book.removeAll()
        #expect(Self.waiters(all) == [[10, 40], [20, 30]])
    }

    @Test("park raises a demand's priority only when higher, and says so; raise(to:) lifts every lower demand")
    func priorities() {
        var book = Book()
        Self.add(&book, .eager, waiting: [0], callers: [1], priority: 21)
        Self.add(&book, .roots([1]), waiting: [1], callers: [2], priority: 9)
        #expect(book.priority == 21)
        let same = book.park(Self.entry(3), at: 1, priority: 9)
        let lower = book.park(Self.entry(4), at: 1, priority: 5)
        #expect(!same, "the same priority raises nothing")
        #expect(!lower && book.demands.map(\.priority) == [21, 9])
        let higher = book.park(Self.entry(5), at: 1, priority: 25)
        #expect(higher)
        #expect(book.demands.map(\.priority) == [21, 25] && book.priority == 25)
        book.raise(to: 23)
        #expect(book.demands.map(\.priority) == [23, 25], "only the lower demand rises")
        book.raise(to: 1)
        #expect(book.demands.map(\.priority) == [23, 25], "raise never lowers")
        #expect(book.waitingCallers == 5)
        Self.expectValid(book)
    }

    @Test("remove(caller:) hands a parked caller back once; a demand left without callers goes")
    func removeCaller() throws {
        var book = Book()
        Self.add(&book, .eager, waiting: [0, 1], callers: [1, 2])
        Self.add(&book, .roots([2]), waiting: [2], callers: [3])
        let removed = book.remove(caller: 2)
        let entry = try #require(removed)
        #expect(entry.id == 2 && entry.waiter == 20 && entry.label == "c2")
        let (again, unknown) = (book.remove(caller: 2), book.remove(caller: 99))
        #expect(again == nil, "answered already")
        #expect(unknown == nil, "never parked")
        #expect(book.waitingCallers == 2 && book.demands.count == 2)
        Self.expectValid(book)

        let last = book.remove(caller: 3)
        #expect(last?.waiter == 30)
        #expect(book.index(of: .roots([2])) == nil && book.demands.map(\.key) == [.eager], "its last caller left")
        // Its closure settling completes nothing now; the other demand is untouched.
        let settled = book.settled(2, failed: false)
        #expect(settled.isEmpty && book.demands.map(\.pending) == [2])
        let first = book.remove(caller: 1)
        #expect(first?.waiter == 10)
        #expect(book.isEmpty && book.priority == nil)
        Self.expectValid(book)
    }

    @Test("settled counts the slot down in every demand waiting for it and completes those at zero, in order")
    func settled() {
        var book = Book()
        Self.add(&book, .eager, waiting: [0, 1, 2], callers: [1])  // A
        Self.add(&book, .roots([3]), waiting: [1, 3], callers: [2])  // D
        Self.add(&book, .roots([1]), waiting: [1], callers: [3, 4])  // B
        Self.add(&book, .roots([4]), waiting: [3], callers: [5])  // C: 4 settled before it joined

        let none = book.settled(7, failed: true)
        #expect(none.isEmpty, "in no closure")
        #expect(book.demands.map(\.pending) == [3, 2, 1, 1] && book.demands.allSatisfy { !$0.failed })

        let first = book.settled(1, failed: false)
        #expect(first.map(\.key) == [.roots([1])] && Self.waiters(first) == [[30, 40]])
        #expect(first.first?.failed == false && first.first?.pending == 0)
        #expect(
            book.demands.map(\.key) == [.eager, .roots([3]), .roots([4])] && book.demands.map(\.pending) == [2, 1, 1])

        let second = book.settled(3, failed: true)
        #expect(second.map(\.key) == [.roots([3]), .roots([4])], "both at once, in the order made")
        #expect(second.allSatisfy(\.failed) && Self.waiters(second) == [[20], [50]])
        #expect(book.demands.map(\.key) == [.eager] && book.demands.first?.failed == false, "3 is not in A")
        Self.expectValid(book)

        let third = book.settled(0, failed: true)
        #expect(third.isEmpty && book.demands.first?.failed == true)
        #expect(book.demands.first?.pending == 1)
        let last = book.settled(2, failed: false)
        #expect(last.map(\.key) == [.eager] && last.first?.failed == true, "a failure sticks")
        #expect(book.isEmpty && book.waitingCallers == 0)
        Self.expectValid(book)
    }

    @Test("takeSettled takes out exactly the demands with nothing pending; until then the invariants object")
    func takeSettled() {
        var book = Book()
        Self.add(&book, .eager, waiting: [0], callers: [1])
        Self.add(&book, .roots([1]), waiting: [], callers: [2])
        Self.add(&book, .roots([2]), waiting: [2], callers: [3])
        Self.add(&book, .roots([3]), waiting: [], callers: [4])
        #expect(book.invariantViolations().count == 2, "two settled demands still wait")
        let taken = book.takeSettled()
        #expect(taken.map(\.key) == [.roots([1]), .roots([3])] && Self.waiters(taken) == [[20], [40]])
        #expect(book.demands.map(\.key) == [.eager, .roots([2])])
        let again = book.takeSettled()
        #expect(again.isEmpty, "taken once")
        Self.expectValid(book)
    }

    @Test("removeAll hands back every demand with its callers, in the order made")
    func removeAll() {
        var book = Book()
        Self.add(&book, .roots([2]), waiting: [2], callers: [1, 2])
        Self.add(&book, .eager, waiting: [0, 1, 2], callers: [3])
        _ = book.settled(2, failed: true)  // completes the first
        Self.add(&book, .roots([0]), waiting: [0], callers: [4])
        let all = book.removeAll()
        #expect(all.map(\.key) == [.eager, .roots([0])] && Self.waiters(all) == [[30], [40]])
        #expect(all.first?.failed == true && all.map(\.pending) == [2, 1])
        let (again, removed) = (book.removeAll(), book.remove(caller: 3))
        #expect(book.isEmpty && again.isEmpty && removed == nil)
        Self.expectValid(book)
    }

    @Test("The invariants catch a demand without callers, a settled one, and two demands for one key")
    func invariants() {
        var book = Book()
        _ = book.add(.init(key: .eager, priority: 21), waitingFor: [0])
        #expect(book.invariantViolations().count == 1, "nobody waits for it")
        _ = book.park(Self.entry(1), at: 0, priority: 21)
        Self.expectValid(book)
        Self.add(&book, .eager, waiting: [0], callers: [2])
        #expect(book.invariantViolations().count == 1, "two demands for .eager")
    }

    @Test("Random requests, cancellations, settlements and resets hand every caller back exactly once")
    func randomSequences() async throws {
        let steps = ThreadSanitizerHooks.acquire != nil ? 200 : 1_000
        for seed in UInt64(1)...10 {
            var driver = DemandBookDriver(seed: seed)
            guard try await drive(&driver, steps: steps, seed: seed) else { return }
            #expect(driver.completed > steps / 40 && driver.cancelled > steps / 40, "seed \(seed) exercised little")
        }
    }
}

/// Drives a ``DemandBook`` the way the state machine does, against a model: a build of some
/// slots, some still unsettled; each demand's closure, failure and priority; and where every
/// caller went.
struct DemandBookDriver: SeededDriver {
    typealias Book = DemandBook<Int>

    struct Demand {
        let key: Book.Key
        let closure: Set<Int>
        var failed = false
        var callers: [Int]
        var priority: UInt8
    }

    static let capacity = 70
    static let priorities: [UInt8] = [9, 17, 21, 25, 33]

    var random: SplitMix64
    var book = Book()
    /// The model: the build's slots, those not settled yet, and the demands in the order made.
    var members = Set<Int>()
    var unsettled = Set<Int>()
    var failedSlots = Set<Int>()
    var demands: [Demand] = []
    /// Each key's closure: the same key always asks for the same slots (within a build's graph).
    var closures: [Book.Key: Set<Int>] = [:]
    /// The keys of ``closures``, in the order made (a dictionary's order changes from run to run).
    var keys: [Book.Key] = []
    /// How many times each caller was handed back (every caller ever made is here).
    var handedBack: [Int: Int] = [:]
    var nextCaller = 1
    var completed = 0
    var cancelled = 0
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        newGraph()
    }

    /// Keys and their closures, spread over two words of slots.
    mutating func newGraph() {
        closures = [.eager: Set((0..<Self.capacity).filter { _ in Int.random(in: 0..<10, using: &random) == 0 })]
        keys = [.eager]
        for _ in 0..<6 {
            let count = Int.random(in: 1...3, using: &random)
            let roots = Array(Set((0..<count).map { _ in Int.random(in: 0..<Self.capacity, using: &random) })).sorted()
            var closure = Set(roots)
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                closure.insert(Int.random(in: 0..<Self.capacity, using: &random))
            }
            if closures.updateValue(closure, forKey: .roots(roots)) == nil { keys.append(.roots(roots)) }
        }
    }

    /// `eager`, `roots 1,5,9`: what the history calls a key, without reflection (each step's line is cheap).
    static func name(_ key: Book.Key) -> String {
        switch key {
        case .eager: "eager"
        case .deferred: "deferred"
        case .roots(let roots): "roots " + roots.map(String.init).joined(separator: ",")
        case .names(let names, _): "names " + names.joined(separator: ",")
        }
    }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30: request()
        case 30..<45: cancel()
        case 45..<92: settle()
        case 92..<97:
            let priority = Self.priorities.randomElement(using: &random)!
            history.append("raise(to: \(priority))")
            book.raise(to: priority)
            for index in demands.indices { demands[index].priority = max(demands[index].priority, priority) }
        default: reset()
        }
        check()
    }

    mutating func finish() {
        reset()
        check()
        for caller in 1..<nextCaller where handedBack[caller] != 1 {
            violations.append("caller \(caller) handed back \(handedBack[caller] ?? 0) times")
        }
    }

    /// A caller asks for a key: it joins the key's demand, or makes one (growing the build by
    /// the closure's missing slots); a closure settled already answers it at once.
    mutating func request() {
        let key = keys.randomElement(using: &random)!
        let closure = closures[key]!
        let caller = nextCaller
        nextCaller += 1
        let priority = Self.priorities.randomElement(using: &random)!
        let entry = CallerRegistry<Int>.Entry(id: caller, label: "c\(caller)", waiter: caller)
        if let index = book.index(of: key) {
            history.append("caller \(caller) joins \(Self.name(key)) at \(priority)")
            // The index names a demand (its id), not a position among those waiting.
            guard let model = demands.firstIndex(where: { $0.key == key }) else {
                return violations.append("\(key) found at \(index), model \(demands.map(\.key))")
            }
            let raised = book.park(entry, at: index, priority: priority)
            if raised != (priority > demands[model].priority) { violations.append("park raised: \(raised)") }
            demands[model].callers.append(caller)
            demands[model].priority = max(demands[model].priority, priority)
            return
        }
        if demands.contains(where: { $0.key == key }) { return violations.append("\(key) not found") }
        unsettled.formUnion(closure.subtracting(members))
        members.formUnion(closure)
        let pending = closure.intersection(unsettled).count
        let failed = !closure.isDisjoint(with: failedSlots)
        var demand = Book.Demand(key: key, priority: priority)
        demand.failed = failed
        demand.callers.park(entry)
        _ = book.add(demand, waitingFor: closure.intersection(unsettled).sorted())
        guard pending > 0 else {
            // Settled before it joined: taken out at once, answered.
            history.append("caller \(caller) asks for settled \(Self.name(key))")
            let taken = book.takeSettled()
            if taken.map(\.key) != [key] || taken.first?.failed != failed {
                violations.append("takeSettled gave \(taken.map(\.key)), model [\(key)]")
            }
            handBack(taken)
            return
        }
        history.append("caller \(caller) makes \(Self.name(key)) at \(priority), \(pending) pending")
        demands.append(Demand(key: key, closure: closure, failed: failed, callers: [caller], priority: priority))
    }

    /// A caller's task is cancelled: parked, answered already, or one that never was.
    mutating func cancel() {
        let waiting = demands.flatMap(\.callers)
        let caller =
            waiting.isEmpty || Int.random(in: 0..<4, using: &random) == 0
            ? Int.random(in: 1...(nextCaller + 1), using: &random) : waiting.randomElement(using: &random)!
        history.append("cancel caller \(caller)")
        let entry = book.remove(caller: caller)
        guard let index = demands.firstIndex(where: { $0.callers.contains(caller) }) else {
            if entry != nil { violations.append("caller \(caller) removed, but it does not wait") }
            return
        }
        guard let entry, entry.id == caller, entry.waiter == caller, entry.label == "c\(caller)" else {
            return violations.append("caller \(caller) waits, remove gave \(entry.map { "\($0)" } ?? "nil")")
        }
        handedBack[caller, default: 0] += 1
        cancelled += 1
        demands[index].callers.removeAll { $0 == caller }
        if demands[index].callers.isEmpty { demands.remove(at: index) }
    }

    /// One unsettled slot of the build settles: mostly one the oldest demand waits for (so that
    /// demands complete before the next reset), sometimes any (perhaps in no closure any more).
    mutating func settle() {
        let waitedFor = demands.first.map { $0.closure.intersection(unsettled) } ?? []
        let candidates = waitedFor.isEmpty || Int.random(in: 0..<4, using: &random) == 0 ? unsettled : waitedFor
        guard let slot = candidates.sorted().randomElement(using: &random) else { return }
        let failed = Int.random(in: 0..<4, using: &random) == 0
        history.append("slot \(slot) settled\(failed ? ", failed" : "")")
        unsettled.remove(slot)
        if failed { failedSlots.insert(slot) }
        let done = book.settled(slot, failed: failed)
        for index in demands.indices where failed && demands[index].closure.contains(slot) {
            demands[index].failed = true
        }
        let expected = demands.filter { $0.closure.isDisjoint(with: unsettled) }
        demands.removeAll { $0.closure.isDisjoint(with: unsettled) }
        if done.map(\.key) != expected.map(\.key) || done.map(\.failed) != expected.map(\.failed)
            || done.contains(where: { $0.pending != 0 })
        {
            violations.append("slot \(slot) completed \(done.map(\.key)), model \(expected.map(\.key))")
        }
        completed += done.count
        handBack(done, expected: expected)
    }

    /// A reset (or the build's end): every demand is taken out; a new build starts, sometimes
    /// on a new graph.
    mutating func reset() {
        history.append("removeAll")
        let all = book.removeAll()
        if all.map(\.key) != demands.map(\.key) { violations.append("removeAll gave \(all.map(\.key))") }
        handBack(all, expected: demands)
        demands = []
        members = []
        unsettled = []
        failedSlots = []
        if Bool.random(using: &random) { newGraph() }
    }

    /// Counts the callers of `taken` as handed back, checking them against `expected` (when given).
    mutating func handBack(_ taken: [Book.Demand], expected: [Demand]? = nil) {
        for (index, demand) in taken.enumerated() {
            var callers = demand.callers
            let waiters = callers.removeAll(named: true).waiters
            if let expected, index < expected.count, waiters != expected[index].callers {
                violations.append("\(demand.key) handed back \(waiters), model \(expected[index].callers)")
            }
            for waiter in waiters { handedBack[waiter, default: 0] += 1 }
        }
    }

    /// What the check compares of a demand.
    struct Row: Equatable {
        let key: Book.Key
        let pending: Int
        let failed: Bool
        let priority: UInt8
    }

    mutating func check() {
        violations += book.invariantViolations()
        let actual = book.demands.map {
            Row(key: $0.key, pending: $0.pending, failed: $0.failed, priority: $0.priority)
        }
        let model = demands.map {
            Row(
                key: $0.key, pending: $0.closure.intersection(unsettled).count, failed: $0.failed,
                priority: $0.priority)
        }
        if actual != model { violations.append("demands \(actual), model \(model)") }
        let callers = demands.reduce(0) { $0 + $1.callers.count }
        if book.waitingCallers != callers { violations.append("\(book.waitingCallers) callers, model \(callers)") }
        if book.priority != demands.map(\.priority).max() { violations.append("priority \(book.priority as UInt8?)") }
        if book.isEmpty != demands.isEmpty { violations.append("isEmpty disagrees") }
    }
}
