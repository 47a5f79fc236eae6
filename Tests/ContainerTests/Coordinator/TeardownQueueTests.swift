import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// The teardown queue and the operations waiting on it, as a value driven with integer
/// operation waiters (STYLE rule 12).
@Suite("Teardown queue as a value")
struct TeardownQueueTests {
    typealias Queue = TeardownQueue<Int>

    static func box(_ name: String) -> AnyServiceBox {
        ServiceBox(0, name: name, builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
    }

    /// Operation `id`, waited for by waiter `id * 10`, whose report says it went from generation `id`.
    static func operation(_ id: Int) -> Queue.Operation {
        .init(
            id: id, waiter: id * 10,
            report: ServiceContainer.ResetReport(reason: .reset, from: id, to: id + 1, invalidated: [], carriedOver: [])
        )
    }

    static func record(_ service: String, error: String? = nil, scope: String? = nil)
        -> ServiceContainer.ResetReport.Teardown
    {
        .init(service: service, generation: 1, error: error, scope: scope)
    }

    /// The teardown job `next(isLeased:)` starts (nothing in `leased` is leased), or `nil`
    /// (recorded) when it starts none.
    static func batch(
        _ queue: inout Queue, leased: Set<ObjectIdentifier> = [], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [Queue.Teardown]? {
        let next = queue.next { leased.contains(ObjectIdentifier($0)) }
        guard case .tearDown(let batch) = next else {
            Issue.record("expected a teardown job, got \(next)", sourceLocation: sourceLocation)
            return nil
        }
        return batch
    }

    /// The operations `next(isLeased:)` completes (nothing in `leased` is leased), or `nil`
    /// (recorded) when it starts a teardown.
    static func completed(
        _ queue: inout Queue, leased: Set<ObjectIdentifier> = [], sourceLocation: SourceLocation = #_sourceLocation
    ) -> [(waiter: Int, report: ServiceContainer.ResetReport)]? {
        let next = queue.next { leased.contains(ObjectIdentifier($0)) }
        guard case .idle(let completed) = next else {
            Issue.record("expected no teardown job, got \(next)", sourceLocation: sourceLocation)
            return nil
        }
        return completed
    }

    /// Each value's record (its service's name), with its owner.
    static func records(_ batch: [Queue.Teardown], error: String? = nil) -> [Queue.TeardownRecord] {
        batch.map { .init(owner: $0.owner, record: record($0.box.name, error: error)) }
    }

    static func expectValid(_ queue: Queue, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(queue.invariantViolations().isEmpty, "\(queue.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test("An empty queue is idle, has no work and completes nobody")
    func empty() {
        var queue = Queue()
        #expect(queue.isIdle && !queue.hasWork && !queue.isTearingDown)
        #expect(queue.operationIDs.isEmpty && queue.queued.isEmpty && queue.unreported.isEmpty)
        #expect(Self.completed(&queue)?.isEmpty == true)
        #expect(queue.isIdle)
        Self.expectValid(queue)
    }

    @Test("A teardown job takes the whole queue, newest value first, each with its owner; one job at a time")
    func batchOrder() {
        var queue = Queue()
        let (a, b, c, d) = (Self.box("a"), Self.box("b"), Self.box("c"), Self.box("d"))
        queue.enqueue([b, a], owner: 1)
        queue.enqueue([d], owner: nil)
        queue.enqueue([c], owner: 2)
        #expect(queue.queued.map(\.name) == ["b", "a", "d", "c"], "in queue order")
        #expect(queue.hasWork && !queue.isIdle && !queue.isTearingDown)
        guard let batch = Self.batch(&queue) else { return }
        #expect(batch.map(\.box.name) == ["d", "c", "b", "a"], "dependents (made later) first")
        #expect(batch.map(\.owner) == [nil, 2, 1, 1])
        #expect(queue.isTearingDown && queue.hasWork && queue.queued.isEmpty)
        #expect(Self.completed(&queue)?.isEmpty == true, "no second job")

        // Values queued while the job runs wait for the next job.
        let e = Self.box("e")
        queue.enqueue([e], owner: 3)
        #expect(Self.completed(&queue)?.isEmpty == true)
        queue.teardownFinished(Self.records(batch))
        #expect(!queue.isTearingDown && queue.hasWork)
        guard let second = Self.batch(&queue) else { return }
        #expect(second.map(\.box.name) == ["e"] && second.map(\.owner) == [3])
        queue.teardownFinished(Self.records(second))
        #expect(queue.isIdle && !queue.hasWork)
        // No operation waits: every record is kept for the next report.
        #expect(queue.unreported.map(\.service) == ["d", "c", "b", "a", "e"])
        Self.expectValid(queue)
    }

    @Test("Operations with nothing to wait for complete at the next step, in the order they came, once")
    func operationsCompleteInOrder() {
        var queue = Queue()
        queue.add(Self.operation(2))
        queue.add(Self.operation(1))
        #expect(queue.operationIDs == [2, 1] && !queue.isIdle && !queue.hasWork)
        guard let completed = Self.completed(&queue) else { return }
        #expect(completed.map(\.waiter) == [20, 10])
        #expect(completed.map(\.report.operation) == [2, 1], "each report names its operation")
        #expect(completed.map(\.report.from) == [2, 1] && completed.allSatisfy { $0.report.tornDown.isEmpty })
        #expect(queue.isIdle && queue.operationIDs.isEmpty)
        #expect(Self.completed(&queue)?.isEmpty == true, "completed once")
        Self.expectValid(queue)
    }

    @Test("An operation waits until the queue is empty and no job runs, even for values it does not own")
    func operationWaitsForQueue() {
        var queue = Queue()
        let (a, b) = (Self.box("a"), Self.box("b"))
        queue.add(Self.operation(1))
        queue.enqueue([a], owner: 1)
        guard let batch = Self.batch(&queue) else { return }
        queue.enqueue([b], owner: nil)  // queued while its job runs
        queue.teardownFinished(Self.records(batch, error: "boom"))
        #expect(queue.operationIDs == [1], "b is still queued")
        guard let second = Self.batch(&queue) else { return }
        #expect(queue.operationIDs == [1], "b is being torn down")
        queue.teardownFinished(Self.records(second))
        guard let completed = Self.completed(&queue) else { return }
        #expect(completed.map(\.waiter) == [10])
        // Its own record after the unowned one that ran later: the unreported go first.
        #expect(completed.first?.report.tornDown == [Self.record("b"), Self.record("a", error: "boom")])
        #expect(completed.first?.report.failures.map(\.service) == ["a"])
        #expect(queue.isIdle && queue.unreported.isEmpty)
        Self.expectValid(queue)
    }

    @Test("Each record goes to its owner's report; unowned ones go to the next operation completed, once")
    func recordsToOwners() {
        var queue = Queue()
        // A permanent failure's value, torn down before any operation exists.
        queue.enqueue([Self.box("p")], owner: nil)
        guard let first = Self.batch(&queue) else { return }
        queue.teardownFinished(Self.records(first))
        #expect(Self.completed(&queue)?.isEmpty == true)
        #expect(queue.unreported.map(\.service) == ["p"], "kept for the next report and the status")

        let (x, y, z, stray) = (Self.box("x"), Self.box("y"), Self.box("z"), Self.box("stray"))
        queue.add(Self.operation(1))
        queue.enqueue([x], owner: 1)
        queue.add(Self.operation(2))
        queue.enqueue([y], owner: 2)
        queue.enqueue([stray], owner: 99)  // an operation that completed long ago
        queue.enqueue([z], owner: nil)
        guard let batch = Self.batch(&queue) else { return }
        #expect(batch.map(\.box.name) == ["stray", "z", "y", "x"], "made in the order x, y, z, stray")
        queue.teardownFinished(Self.records(batch))
        #expect(queue.unreported.map(\.service) == ["p", "stray", "z"])
        guard let completed = Self.completed(&queue) else { return }
        #expect(completed.map(\.waiter) == [10, 20])
        #expect(completed.first?.report.tornDown.map(\.service) == ["p", "stray", "z", "x"])
        #expect(completed.last?.report.tornDown.map(\.service) == ["y"], "the unreported are reported once")
        #expect(queue.unreported.isEmpty)

        // Records that come back with no operation waiting go to the next one added.
        queue.enqueue([Self.box("late")], owner: 2)
        guard let late = Self.batch(&queue) else { return }
        queue.teardownFinished(Self.records(late))
        queue.add(Self.operation(3))
        #expect(Self.completed(&queue)?.first?.report.tornDown == [Self.record("late")])
        Self.expectValid(queue)
    }

    @Test("An operation waits for the scope instances it expects; later operations wait behind it")
    func children() {
        var queue = Queue()
        queue.add(Self.operation(1))
        queue.expect(children: [3, 4], for: 1)
        queue.add(Self.operation(2))
        queue.expect(children: [7], for: 99)  // no such operation: ignored
        queue.enqueue([Self.box("a")], owner: 1)
        guard let batch = Self.batch(&queue) else { return }
        queue.teardownFinished(Self.records(batch))
        #expect(Self.completed(&queue)?.isEmpty == true, "1 waits for 3 and 4")

        queue.child(4, reported: [Self.record("s4", scope: "s#4")], to: 1)
        #expect(Self.completed(&queue)?.isEmpty == true, "still waits for 3")
        queue.child(9, reported: [Self.record("s9", scope: "s#9")], to: 42)  // no such operation
        #expect(queue.unreported.map(\.service) == ["s9"])
        queue.child(3, reported: [Self.record("s3", scope: "s#3")], to: 1)
        guard let completed = Self.completed(&queue) else { return }
        #expect(completed.map(\.waiter) == [10, 20], "in order: 2 waited behind 1")
        // The instances' values first, in the order they reported, then the unreported, then its own.
        #expect(completed.first?.report.tornDown.map(\.service) == ["s4", "s3", "s9", "a"])
        #expect(completed.first?.report.tornDown.first?.scope == "s#4")
        #expect(completed.last?.report.tornDown.isEmpty == true)
        #expect(queue.isIdle)
        Self.expectValid(queue)
    }

    @Test("A later operation waiting for a child holds no earlier one back")
    func childrenOfLaterOperation() {
        var queue = Queue()
        queue.add(Self.operation(1))
        queue.add(Self.operation(2))
        queue.expect(children: [5], for: 2)
        queue.expect(children: [], for: 1)
        #expect(Self.completed(&queue)?.map(\.waiter) == [10])
        #expect(queue.operationIDs == [2])
        queue.child(5, reported: [], to: 2)
        #expect(Self.completed(&queue)?.map(\.waiter) == [20])
    }

    @Test("Nothing is torn down while any queued value is leased; once none is, one batch in reverse creation order")
    func leaseGating() {
        var queue = Queue()
        let (a, b, c) = (Self.box("a"), Self.box("b"), Self.box("c"))
        var leased: Set<ObjectIdentifier> = [ObjectIdentifier(b)]
        queue.add(Self.operation(1))
        queue.enqueue([a, c], owner: 1)
        queue.enqueue([b], owner: nil)
        for _ in 0..<2 {
            #expect(Self.completed(&queue, leased: leased)?.isEmpty == true)
        }
        #expect(!queue.isTearingDown && queue.queued.map(\.name) == ["a", "c", "b"], "nothing taken, a and c neither")
        #expect(queue.operationIDs == [1], "the operation waits for the leased value too")
        let other = Self.box("other")
        leased = [ObjectIdentifier(other)]  // a value not queued: no matter
        guard let batch = Self.batch(&queue, leased: leased) else { return }
        #expect(batch.map(\.box.name) == ["c", "b", "a"])
        // A value leased while its job runs is the job's business, not the queue's.
        leased = [ObjectIdentifier(a)]
        queue.teardownFinished(Self.records(batch))
        #expect(Self.completed(&queue, leased: leased)?.map(\.waiter) == [10])
        Self.expectValid(queue)
    }

    @Test("noteCancelled writes the cancelled build into its operation's report only")
    func noteCancelled() {
        var queue = Queue()
        queue.add(Self.operation(1))
        queue.add(Self.operation(2))
        queue.noteCancelled(BuildAttempt(generation: 1, attempt: 3), by: 2)
        queue.noteCancelled(BuildAttempt(generation: 9, attempt: 9), by: 7)  // no such operation: ignored
        guard let completed = Self.completed(&queue) else { return }
        #expect(completed.map(\.report.cancelledBuild) == [nil, BuildAttempt(generation: 1, attempt: 3)])
        #expect(completed.last?.report.from == 2 && completed.last?.report.operation == 2, "the rest of the report")
        queue.noteCancelled(BuildAttempt(generation: 1, attempt: 4), by: 2)  // completed already: ignored
        queue.add(Self.operation(3))
        #expect(Self.completed(&queue)?.first?.report.cancelledBuild == nil)
    }

    @Test("An operation added twice breaks the invariants")
    func invariants() {
        var queue = Queue()
        queue.add(Self.operation(1))
        Self.expectValid(queue)
        queue.add(Self.operation(1))
        #expect(queue.invariantViolations() == ["an operation waits twice"])
    }

    @Test("Random values, operations, leases and children: every value torn down once, every record reported once")
    func randomSequences() async throws {
        let steps = ThreadSanitizerHooks.acquire != nil ? 200 : 1_000
        for seed in UInt64(1)...10 {
            var driver = TeardownQueueDriver(seed: seed)
            guard try await drive(&driver, steps: steps, seed: seed) else { return }
            #expect(
                driver.completions.count > steps / 20 && driver.tornDown.count > steps / 5,
                "seed \(seed) exercised little")
            #expect(driver.gated > 0, "seed \(seed) never held a teardown for a lease")
        }
    }
}

/// Drives a ``TeardownQueue`` with random events, calling ``TeardownQueue/next(isLeased:)`` after
/// each one that may free it (as the coordinator does), against a model: the queue and its
/// owners, the job in flight, the leased values, the operations with the children they wait
/// for and the records routed to each, and the unreported records.
struct TeardownQueueDriver: SeededDriver {
    typealias Queue = TeardownQueue<Int>

    struct Operation {
        let id: Int
        var children: Set<Int>
        /// Those of `children` told to reset or rebuild: only their own answer ends the wait.
        var answering: Set<Int> = []
        var childRecords: [String] = []
        var records: [String] = []
        var cancelled: BuildAttempt?
    }

    var random: SplitMix64
    var queue = Queue()
    /// The model.
    var queued: [Queue.Teardown] = []
    var job: [Queue.Teardown]?
    /// The values scope instances lease (a few at a time).
    var leases: [AnyServiceBox] = []
    var operations: [Operation] = []
    var unreported: [String] = []
    /// Every value queued (held, so that no identifier is reused), and how often a job took it.
    var enqueued: [AnyServiceBox] = []
    var tornDown: [ObjectIdentifier: Int] = [:]
    /// Each record, by service: the operation whose report must list it (`nil`: any one, or
    /// none when still unreported at the end), and the reports that listed it.
    var reporter: [String: Int?] = [:]
    var reported: [String: [Int]] = [:]
    var completions: [Int: Int] = [:]
    /// How many times `next` held queued values back for a lease.
    var gated = 0
    var nextOperation = 1
    var nextChild = 1
    var nextValue = 1
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<20: enqueue()
        case 20..<30: operation()
        case 30..<43: lease()
        case 43..<53: release()
        case 53..<65: childEnded()
        case 65..<70: childClosed()
        case 70..<90: finishTeardown()
        case 90..<95: noteCancelled()
        default:
            history.append("next")
            callNext()
        }
        check()
    }

    /// Releases every lease, ends every child and teardown; then every value must have been torn
    /// down once, every record reported once, every operation completed once.
    mutating func finish() {
        leases = []
        callNext()
        while job != nil || !operations.isEmpty {
            if job != nil {
                finishTeardown()
            } else if let index = operations.firstIndex(where: { !$0.children.isEmpty }) {
                endChild(operations[index].children.min()!, of: index)
            } else {
                callNext()
            }
            check()
            if !violations.isEmpty { return }
        }
        if !queue.isIdle || !queued.isEmpty { violations.append("not idle at the end") }
        for box in enqueued where tornDown[ObjectIdentifier(box)] != 1 {
            violations.append("\(box.name) torn down \(tornDown[ObjectIdentifier(box)] ?? 0) times")
        }
        let left = Set(queue.unreported.map(\.service))
        for (service, owner) in reporter {
            let reports = reported[service] ?? []
            switch owner {
            case .some(let owner) where reports != [owner]:
                violations.append("\(service) of operation \(owner) reported by \(reports)")
            case .none where reports.count + (left.contains(service) ? 1 : 0) != 1:
                violations.append("\(service) reported by \(reports), unreported: \(left.contains(service))")
            default: break
            }
        }
        if reported.keys.contains(where: { reporter[$0] == nil }) { violations.append("a record nobody made") }
        for id in 1..<nextOperation where completions[id] != 1 {
            violations.append("operation \(id) completed \(completions[id] ?? 0) times")
        }
    }

    mutating func check() {
        violations += queue.invariantViolations()
        if queue.queued.map(ObjectIdentifier.init) != queued.map({ ObjectIdentifier($0.box) }) {
            violations.append("queued \(queue.queued.map(\.name)), model \(queued.map(\.box.name))")
        }
        if queue.isTearingDown != (job != nil) || queue.hasWork != (job != nil || !queued.isEmpty)
            || queue.isIdle != (job == nil && queued.isEmpty && operations.isEmpty)
        {
            violations.append("tearing down \(queue.isTearingDown), has work \(queue.hasWork), idle \(queue.isIdle)")
        }
        if queue.operationIDs != operations.map(\.id) {
            violations.append("operations \(queue.operationIDs), model \(operations.map(\.id))")
        }
        if queue.unreported.map(\.service) != unreported {
            violations.append("unreported \(queue.unreported.map(\.service)), model \(unreported)")
        }
    }

    // MARK: Events

    /// An owner: a waiting operation's, nobody's, or one no longer waiting.
    mutating func owner() -> Int? {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5 where !operations.isEmpty: operations.randomElement(using: &random)!.id
        case 5..<7 where nextOperation > 1: Int.random(in: 1..<nextOperation, using: &random)
        default: nil
        }
    }

    /// `count` new values, in creation order.
    mutating func makeValues(_ count: Int) -> [AnyServiceBox] {
        (0..<count).map { _ in
            defer { nextValue += 1 }
            return ServiceBox(0, name: "v\(nextValue)", builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
        }
    }

    /// Queues `boxes` for `owner`, in the queue and in the model.
    mutating func enqueue(_ boxes: [AnyServiceBox], owner: Int?) {
        history.append("enqueue \(boxes.map(\.name)) for \(owner.map(String.init) ?? "nobody")")
        queue.enqueue(boxes, owner: owner)
        queued += boxes.map { Queue.Teardown(box: $0, owner: owner) }
        enqueued += boxes
    }

    /// Values made in one order, queued in another, with one owner.
    mutating func enqueue() {
        let owner = owner()
        enqueue(makeValues(Int.random(in: 0...3, using: &random)).shuffled(using: &random), owner: owner)
        callNext()
    }

    /// A reset, reload or shutdown: retires values, may end children, waits.
    mutating func operation() {
        let id = nextOperation
        nextOperation += 1
        // New instances, or some another operation waits for already.
        let waited = operations.flatMap(\.children)
        let children = Set(
            (0..<Int.random(in: 0...2, using: &random)).map { _ in
                if let child = waited.randomElement(using: &random), Bool.random(using: &random) { return child }
                defer { nextChild += 1 }
                return nextChild
            })
        let answering = children.filter { _ in Bool.random(using: &random) }
        history.append("operation \(id) expecting children \(children.sorted()), answering \(answering.sorted())")
        queue.add(
            .init(
                id: id, waiter: id,
                report: ServiceContainer.ResetReport(
                    reason: .reset, from: id, to: id + 1, invalidated: [], carriedOver: [])))
        queue.expect(children: children, answering: answering, for: id)
        operations.append(Operation(id: id, children: children, answering: answering))
        if Bool.random(using: &random) { enqueue(makeValues(Int.random(in: 1...3, using: &random)), owner: id) }
        callNext()
    }

    /// A scope instance leases a queued value (as one that leased it before it was retired
    /// would), or one a job has taken already (which the queue no longer gates).
    mutating func lease() {
        guard leases.count < 3,
            let box = (Bool.random(using: &random) ? job?.randomElement(using: &random)?.box : nil)
                ?? queued.randomElement(using: &random)?.box
        else { return }
        history.append("lease \(box.name)")
        leases.append(box)
    }

    mutating func release() {
        guard !leases.isEmpty else { return }
        let box = leases.remove(at: Int.random(in: 0..<leases.count, using: &random))
        history.append("release \(box.name)")
        callNext()
    }

    /// A child ends for an operation waiting for it, or reports to one that is not waiting.
    mutating func childEnded() {
        let waiting = operations.indices.filter { !operations[$0].children.isEmpty }
        if let index = waiting.randomElement(using: &random), Int.random(in: 0..<5, using: &random) != 0 {
            endChild(operations[index].children.sorted().randomElement(using: &random)!, of: index)
        } else {
            let records = childRecords()
            let id = nextOperation + 5
            history.append("child reports \(records) to \(id), not waiting")
            queue.child(nextChild + 5, reported: records.map { .init(service: $0, generation: 1, error: nil) }, to: id)
            unreported += records
            for record in records { reporter[record] = .some(nil) }
        }
        callNext()
    }

    mutating func endChild(_ child: Int, of index: Int) {
        let records = childRecords()
        let id = operations[index].id
        history.append("child \(child) ends for \(id) with \(records)")
        queue.child(child, reported: records.map { .init(service: $0, generation: 1, error: nil) }, to: id)
        operations[index].children.remove(child)
        operations[index].answering.remove(child)
        operations[index].childRecords += records
        for record in records { reporter[record] = .some(id) }
    }

    /// A child closes for good, reporting to one operation waiting for it (or to none: it
    /// closed itself); the others stop waiting, but for the answers it still owes them.
    mutating func childClosed() {
        guard let child = operations.flatMap(\.children).randomElement(using: &random) else { return }
        let waiting = operations.indices.filter { operations[$0].children.contains(child) }
        let reportedTo = Bool.random(using: &random) ? waiting.randomElement(using: &random) : nil
        if let reportedTo { endChild(child, of: reportedTo) }
        let operation = reportedTo.map { operations[$0].id }
        history.append("child \(child) closed, reported to \(operation.map(String.init) ?? "none")")
        queue.childClosed(child, reportedTo: operation)
        for index in operations.indices where operations[index].id != operation {
            if !operations[index].answering.contains(child) { operations[index].children.remove(child) }
        }
        callNext()
    }

    mutating func childRecords() -> [String] {
        (0..<Int.random(in: 0...2, using: &random)).map { _ in
            defer { nextValue += 1 }
            return "c\(nextValue)"
        }
    }

    mutating func finishTeardown() {
        guard let batch = job else { return }
        history.append("teardown of \(batch.map(\.box.name)) finished")
        queue.teardownFinished(
            batch.map { .init(owner: $0.owner, record: .init(service: $0.box.name, generation: 1, error: nil)) })
        job = nil
        for item in batch {
            if let owner = item.owner, let index = operations.firstIndex(where: { $0.id == owner }) {
                operations[index].records.append(item.box.name)
                reporter[item.box.name] = .some(owner)
            } else {
                unreported.append(item.box.name)
                reporter[item.box.name] = .some(nil)
            }
        }
        callNext()
    }

    mutating func noteCancelled() {
        let id = Int.random(in: 1...(nextOperation + 1), using: &random)
        let build = BuildAttempt(generation: id, attempt: nextValue)
        history.append("noteCancelled \(build) by \(id)")
        queue.noteCancelled(build, by: id)
        if let index = operations.firstIndex(where: { $0.id == id }) { operations[index].cancelled = build }
    }

    /// ``TeardownQueue/next(isLeased:)``, against what the model expects of it.
    mutating func callNext() {
        let leased = Set(leases.map(ObjectIdentifier.init))
        let next = queue.next { leased.contains(ObjectIdentifier($0)) }
        if job != nil {
            guard case .idle(let completed) = next, completed.isEmpty else {
                return violations.append("next() with a job in flight gave \(next)")
            }
            return
        }
        if !queued.isEmpty {
            guard !queued.contains(where: { leased.contains(ObjectIdentifier($0.box)) }) else {
                guard case .idle(let completed) = next, completed.isEmpty else {
                    return violations.append("next() with a leased value queued gave \(next)")
                }
                gated += 1
                return
            }
            let expected = queued.sorted { $0.box.sequence > $1.box.sequence }
            queued = []
            guard case .tearDown(let batch) = next else { return violations.append("next() gave \(next)") }
            let same =
                batch.count == expected.count
                && zip(batch, expected).allSatisfy { $0.box === $1.box && $0.owner == $1.owner }
            if !same { violations.append("teardown \(batch.map(\.box.name)), model \(expected.map(\.box.name))") }
            if batch.contains(where: { leased.contains(ObjectIdentifier($0.box)) }) {
                violations.append("a leased value in a teardown job")
            }
            for item in batch { tornDown[ObjectIdentifier(item.box), default: 0] += 1 }
            job = batch
            return
        }
        guard case .idle(let completed) = next else { return violations.append("next() gave \(next), not idle") }
        let ready = operations.prefix { $0.children.isEmpty }
        if completed.map(\.waiter) != ready.map(\.id) {
            violations.append("completed \(completed.map(\.waiter)), model \(ready.map(\.id))")
        }
        for (index, (done, model)) in zip(completed, ready).enumerated() {
            completions[done.waiter, default: 0] += 1
            let expected = model.childRecords + (index == 0 ? unreported : []) + model.records
            let services = done.report.tornDown.map(\.service)
            if services != expected {
                violations.append("operation \(model.id) reported \(services), model \(expected)")
            }
            if done.report.operation != model.id || done.report.from != model.id {
                violations.append("the report of \(model.id) is another's")
            }
            if done.report.cancelledBuild != model.cancelled {
                violations.append("operation \(model.id) cancelled \(done.report.cancelledBuild as BuildAttempt?)")
            }
            for service in services { reported[service, default: []].append(model.id) }
        }
        if !completed.isEmpty { unreported = [] }
        operations.removeFirst(min(completed.count, operations.count))
    }
}
