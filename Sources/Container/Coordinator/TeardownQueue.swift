/// The values queued for teardown, the teardown job in flight, and the operations (reset,
/// reload, shutdown, close) that wait until their values are torn down.
///
/// Teardowns run only while no build runs (see ``CoordinatorStateMachine``), one job at a
/// time, dependents first; a value a scope instance still uses (its lease, see ``ChildBook``)
/// is not torn down before the instance released it. A plain value, generic over the
/// operations' waiters so tests drive it with integers.
///
/// Every queued value has an **owner**: the operation whose report lists its teardown (the
/// one that retired it, or that superseded the build that made it). Teardowns nobody owns go
/// to the next operation's report, so a teardown error is never lost, and each teardown is
/// reported exactly once.
struct TeardownQueue<OperationWaiter> {
    /// A value to tear down, and the operation that reports it.
    struct Teardown {
        let box: AnyServiceBox
        let owner: Int?
    }

    /// A finished teardown, and the operation that reports it.
    struct TeardownRecord {
        let owner: Int?
        let record: ServiceContainer.ResetReport.Teardown
    }

    /// An operation waiting for its teardowns and for the scope instances it ended.
    struct Operation {
        let id: Int
        let waiter: OperationWaiter
        /// The report without its teardowns.
        var report: ServiceContainer.ResetReport
        var tornDown: [ServiceContainer.ResetReport.Teardown] = []
        /// The scope instances (by id) whose ends this operation reports and still waits for.
        var children: Set<Int> = []
        /// Those of `children` it told to reset or rebuild (not to close): each answers that
        /// order itself, even once it closed, so only that answer ends the wait.
        var answering: Set<Int> = []
        /// Teardowns of those instances, in the order they reported.
        var childTornDown: [ServiceContainer.ResetReport.Teardown] = []
        /// A shutdown (or close) waits for its own trace too: nothing hears that it ended (its
        /// waiter, its parent) before its `container.shutdown` or `scope.closed` is traced.
        var awaitsTrace = false
    }

    /// What to do now that no build runs.
    enum Next {
        /// Start a teardown job of these values, in this order (dependents first).
        case tearDown([Teardown])
        /// Nothing to tear down now: these operations are complete (possibly none).
        case idle(completed: [(waiter: OperationWaiter, report: ServiceContainer.ResetReport)])
    }

    private(set) var isTearingDown = false
    private var queue: [Teardown] = []
    private var operations: [Operation] = []
    /// Teardowns no operation owned, for the next operation's report (and the status).
    private(set) var unreported: [ServiceContainer.ResetReport.Teardown] = []

    /// Whether a teardown job runs, what is queued, and the operations waiting with the
    /// children each still waits for (for a test that timed out).
    var debugSummary: String {
        let waiting = operations.map { "\($0.id) (children \($0.children.sorted()), trace \($0.awaitsTrace))" }
        return "running \(isTearingDown), queued \(queue.count), operations \(waiting)"
    }

    /// Whether nothing is queued or running and no operation waits.
    var isIdle: Bool { !isTearingDown && queue.isEmpty && operations.isEmpty }

    /// Whether values wait to be torn down (or are being torn down).
    var hasWork: Bool { isTearingDown || !queue.isEmpty }

    /// The ids of the operations waiting, oldest first (for tests).
    var operationIDs: [Int] { operations.map(\.id) }

    /// Queues values for teardown, reported by `owner`.
    mutating func enqueue(_ boxes: some Sequence<AnyServiceBox>, owner: Int?) {
        for box in boxes { queue.append(Teardown(box: box, owner: owner)) }
    }

    /// The queued values, in queue order.
    var queued: [AnyServiceBox] { queue.map(\.box) }

    /// An operation waits until every value queued so far is torn down.
    mutating func add(_ operation: Operation) { operations.append(operation) }

    /// Operation `id` also waits for the end of the scope instances `children`; it told those in
    /// `answering` to reset or rebuild, the others to close.
    mutating func expect(children: some Sequence<Int>, answering: Set<Int> = [], for id: Int) {
        guard let index = operations.firstIndex(where: { $0.id == id }) else { return }
        operations[index].children.formUnion(children)
        operations[index].answering.formUnion(answering)
    }

    /// Operation `id` carried over `name`, a late value of the build it superseded.
    mutating func noteCarried(_ name: String, by id: Int) {
        guard let index = operations.firstIndex(where: { $0.id == id }) else { return }
        operations[index].report = operations[index].report.with(alsoCarried: name)
    }

    /// Operation `id` is traced (see ``Operation/awaitsTrace``).
    mutating func traced(_ id: Int) {
        guard let index = operations.firstIndex(where: { $0.id == id }) else { return }
        operations[index].awaitsTrace = false
    }

    /// Scope instance `child` ended for operation `id` with these teardowns.
    mutating func child(_ child: Int, reported records: [ServiceContainer.ResetReport.Teardown], to id: Int) {
        guard let index = operations.firstIndex(where: { $0.id == id }) else {
            unreported += records
            return
        }
        operations[index].children.remove(child)
        operations[index].answering.remove(child)
        operations[index].childTornDown += records
    }

    /// Scope instance `child` closed for good (reported to `operation`): the other operations
    /// waiting for it stop waiting (their close order was refused, or came after the close),
    /// except those waiting for its answer to a reset or rebuild order. That answer comes too,
    /// and may come after the close: each of the instance's steps reports from the thread that
    /// ran it, so its teardowns would be lost if the operation had completed without them.
    mutating func childClosed(_ child: Int, reportedTo operation: Int?) {
        for index in operations.indices where operations[index].id != operation {
            if !operations[index].answering.contains(child) { operations[index].children.remove(child) }
        }
    }

    /// Notes in operation `id`'s report that it cancelled `build`.
    mutating func noteCancelled(_ build: BuildAttempt, by id: Int) {
        guard let index = operations.firstIndex(where: { $0.id == id }) else { return }
        operations[index].report = operations[index].report.with(cancelledBuild: build)
    }

    /// The teardown job ended; each record goes to its owner's report, or waits for the next one.
    mutating func teardownFinished(_ records: [TeardownRecord]) {
        precondition(isTearingDown, "teardownFinished without a teardown job")
        isTearingDown = false
        for item in records {
            if let owner = item.owner, let index = operations.firstIndex(where: { $0.id == owner }) {
                operations[index].tornDown.append(item.record)
            } else {
                unreported.append(item.record)
            }
        }
    }

    /// With no build running: starts tearing down what is queued (once no queued value is
    /// leased), or completes the operations, oldest first, whose scope instances have ended.
    mutating func next(isLeased: (AnyServiceBox) -> Bool) -> Next {
        guard !isTearingDown else { return .idle(completed: []) }
        if !queue.isEmpty {
            guard !queue.contains(where: { isLeased($0.box) }) else { return .idle(completed: []) }
            // Dependents before their dependencies: values were made after their dependencies.
            let batch = queue.sorted { $0.box.sequence > $1.box.sequence }
            queue = []
            isTearingDown = true
            return .tearDown(batch)
        }
        return .idle(completed: completedOperations())
    }

    /// The operations, oldest first, that nothing queued or being torn down holds up and whose
    /// scope instances have ended: complete also while a build of the new generation runs (no
    /// teardown may start then, but an operation must not wait for a build it did not start).
    mutating func completedOperations() -> [(waiter: OperationWaiter, report: ServiceContainer.ResetReport)] {
        guard !isTearingDown, queue.isEmpty else { return [] }
        var completed: [(waiter: OperationWaiter, report: ServiceContainer.ResetReport)] = []
        while let operation = operations.first, operation.children.isEmpty, !operation.awaitsTrace {
            operations.removeFirst()
            // Scoped values went first; teardowns nobody owned go to the first report that can take them.
            var report = operation.report.with(tornDown: operation.childTornDown + unreported + operation.tornDown)
            unreported = []
            report.operation = operation.id
            completed.append((operation.waiter, report))
        }
        return completed
    }

    /// Broken invariants: with no job and nothing leased, nothing is left queued.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        if Set(operations.map(\.id)).count != operations.count { violations.append("an operation waits twice") }
        for operation in operations where !operation.answering.isSubset(of: operation.children) {
            violations.append("operation \(operation.id) waits for an answer from an instance it does not wait for")
        }
        return violations
    }
}
