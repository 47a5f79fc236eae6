/// The coordinator's one job in flight (a build or a teardown), the values queued for teardown,
/// and the operations (reset, reload, shutdown) that wait until their values are torn down.
///
/// Rule 8 of <doc:CoordinatorRules>: a new build starts only once the previous one has stopped and the values
/// it retired are torn down; teardowns run only when no build runs. A plain value, generic over
/// the build handle and the operations' waiters, so tests drive it with integers.
///
/// Every queued value has an **owner**: the operation whose report lists its teardown (the
/// reset that retired it, or that superseded the build that made it), or none (a permanent
/// failure retired it). Teardowns nobody owns are kept for the next operation's report, so a
/// teardown error is never lost (<doc:CoordinatorRules>, "Teardown"), and each teardown is reported exactly once.
struct JobSlot<BuildHandle, OperationWaiter> {
    /// A value to tear down, and the operation that reports it.
    struct Teardown {
        let box: AnyServiceBox
        let owner: Int?
    }

    /// A finished teardown, and the operation that reports it.
    struct TeardownRecord {
        let owner: Int?
        let record: ResetReport.Teardown
    }

    /// A reset, reload or shutdown waiting for its teardowns.
    struct Operation {
        let id: Int
        let waiter: OperationWaiter
        /// The report without its teardowns.
        var report: ResetReport
        var tornDown: [ResetReport.Teardown] = []
    }

    /// What a build job ended as.
    enum BuildEnd: Equatable {
        /// It was the current build: its result counts.
        case current
        /// An operation superseded it: its values are retired, reported by `owner`.
        case superseded(owner: Int?)
    }

    /// What to do now that no job is in flight.
    enum Next {
        /// Start a teardown job of these values, in this order (dependents first).
        case tearDown([Teardown])
        /// Nothing queued: these operations are complete (possibly none).
        case idle(completed: [(waiter: OperationWaiter, report: ResetReport)])
    }

    private enum State {
        case idle
        /// `owner` is set once an operation superseded the build (`.some(nil)`: by nobody's report).
        case building(id: Int, handle: BuildHandle?, supersededBy: Int??)
        case tearingDown
    }

    private var state = State.idle
    private var queue: [Teardown] = []
    private var operations: [Operation] = []
    /// Teardowns no operation owned, for the next operation's report (and the status).
    private(set) var unreported: [ResetReport.Teardown] = []

    /// Whether no job is in flight.
    var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// The id of the build in flight, if one is.
    var buildID: Int? {
        if case .building(let id, _, _) = state { return id }
        return nil
    }

    /// The task of the build in flight, once launched and unless superseded.
    var buildHandle: BuildHandle? {
        if case .building(_, let handle, nil) = state { return handle }
        return nil
    }

    /// Whether operations wait for teardowns.
    var hasPendingOperations: Bool { !operations.isEmpty }

    // MARK: Builds

    /// Records that build `id` is launched (its task is created in the same critical section).
    mutating func buildStarted(id: Int) {
        guard case .idle = state else { preconditionFailure("build \(id) started while \(state)") }
        state = .building(id: id, handle: nil, supersededBy: nil)
    }

    /// Records the task of build `id`.
    mutating func buildLaunched(id: Int, handle: BuildHandle) {
        guard case .building(id, nil, let superseded) = state else {
            preconditionFailure("buildLaunched(\(id)) while \(state)")
        }
        state = .building(id: id, handle: handle, supersededBy: superseded)
    }

    /// Marks the build in flight superseded by `owner` (whose report lists its late values) and
    /// returns its handle to cancel; `nil` when no build runs or it was superseded already.
    mutating func supersedeBuild(owner: Int?) -> BuildHandle? {
        guard case .building(let id, let handle, nil) = state else { return nil }
        state = .building(id: id, handle: handle, supersededBy: .some(owner))
        return handle
    }

    /// Build `id` ended.
    mutating func buildFinished(id: Int) -> BuildEnd {
        guard case .building(id, _, let superseded) = state else {
            preconditionFailure("buildFinished(\(id)) while \(state)")
        }
        state = .idle
        return superseded.map { .superseded(owner: $0) } ?? .current
    }

    // MARK: Teardowns and operations

    /// Queues values for teardown, reported by `owner`.
    mutating func enqueue(_ boxes: some Sequence<AnyServiceBox>, owner: Int?) {
        for box in boxes { queue.append(Teardown(box: box, owner: owner)) }
    }

    /// An operation waits until every value queued so far is torn down.
    mutating func add(_ operation: Operation) { operations.append(operation) }

    /// Notes in operation `id`'s report that it cancelled `build`.
    mutating func noteCancelled(_ build: BuildAttempt, by id: Int) {
        guard let index = operations.firstIndex(where: { $0.id == id }) else { return }
        operations[index].report = operations[index].report.with(cancelledBuild: build)
    }

    /// A teardown job ended; each record goes to its owner's report, or waits for the next one.
    mutating func teardownFinished(_ records: [TeardownRecord]) {
        guard case .tearingDown = state else { preconditionFailure("teardownFinished while \(state)") }
        state = .idle
        for item in records {
            if let owner = item.owner, let index = operations.firstIndex(where: { $0.id == owner }) {
                operations[index].tornDown.append(item.record)
            } else {
                unreported.append(item.record)
            }
        }
    }

    /// With no job in flight: starts tearing down what is queued, or completes the operations.
    mutating func next() -> Next {
        guard case .idle = state else { return .idle(completed: []) }
        if !queue.isEmpty {
            // Dependents before their dependencies ("Teardown" in Coordinator rules): values were made after them.
            let batch = queue.sorted { $0.box.sequence > $1.box.sequence }
            queue = []
            state = .tearingDown
            return .tearDown(batch)
        }
        var completed: [(waiter: OperationWaiter, report: ResetReport)] = []
        for operation in operations {
            // Teardowns nobody owned (a permanent failure's) go to the first report that can take them.
            let earlier = completed.isEmpty ? unreported : []
            var report = operation.report.with(tornDown: earlier + operation.tornDown)
            report.operation = operation.id
            completed.append((operation.waiter, report))
        }
        if !completed.isEmpty { unreported = [] }
        operations = []
        return .idle(completed: completed)
    }

    /// Broken invariants: an idle slot (after ``next()``) has nothing queued and nobody waiting.
    func invariantViolations() -> [String] {
        guard case .idle = state, !queue.isEmpty || !operations.isEmpty else { return [] }
        return ["an idle job slot has \(queue.count) queued teardowns and \(operations.count) operations"]
    }
}
