/// The build of a generation: the nodes it builds (its **members**: what the requests waiting
/// for it lack), how many dependencies each still waits for, which have started and settled.
///
/// A build grows while it runs: a request that arrives needing nodes the generation lacks
/// adds them, and the build starts each as soon as its dependencies have values. It ends
/// when no member runs or can start. A plain value, owned by the state machine.
struct BuildState {
    let id: Int
    let build: BuildAttempt
    /// The tasks' handle, once the build is launched (see ``BuildTicket``).
    var ticket: BuildTicket?
    /// The members' records (outcomes, runs, times, and how many dependencies each waits for).
    var records: BuildRecords
    /// Members whose dependencies all have values, not started (the build is not launched yet,
    /// or waits for the app's values).
    var ready: [Int] = []
    /// Members not started yet.
    var unstarted = 0
    /// Members started and not settled.
    var running = 0
    /// Set once nothing more may start (the build was cancelled, or failed fast).
    var stopped = false
    /// The priority its tasks run at (a `TaskPriority.rawValue`).
    var priority: UInt8
    /// When the build was launched (time since the container was created).
    var launchedAt: Duration?
    /// For a scope instance: the app values of the members are being fetched (its ready members
    /// wait for the fetch to end).
    var awaitingApp = false
    /// App values the members need that are not fetched yet (asked for once the fetch in
    /// flight ends).
    var toFetch: [Int] = []
    /// Closure nodes with a value before the build started them, already traced as reused (or,
    /// before the launch, the closures to trace them from); only when traced.
    var reused: SlotSet? {
        get { traced.value?.reused }
        set { tracing { $0.reused = newValue } }
    }
    /// Before the launch, the `build.added` events to record after `build.started`; only when traced.
    var added: [(nodes: [String], caller: String)] {
        get { traced.value?.added ?? [] }
        set { tracing { $0.added = newValue } }
    }
    /// What only a traced build keeps, out of line: an untraced one keeps a word for it.
    private var traced = OutOfLine<Traced>(nil)
    /// The operation whose report lists the late values of a build a reset or reload superseded.
    var supersededBy: Int??
    /// For a build an incremental reset or a reload superseded: where its late values carry over
    /// to, as values made before the operation would have (a logout never opens the database
    /// twice).
    var lateValues: LateValues?

    /// The generation an incremental reset or a reload began, what it rebuilds there, and where
    /// the superseded build's slots are in its graph.
    struct LateValues {
        let generation: Int
        /// The new generation's slots it rebuilds (invalidated, or changed by the reload).
        let rebuilt: Set<Int>
        /// The new slot of each old one (a reload that moved services); `nil`: the same slots.
        let newSlots: [Int: Int]?

        /// Where the late value of old `slot` would go: `nil` when it is rebuilt or gone.
        func slot(for slot: Int) -> Int? {
            let new = newSlots == nil ? slot : newSlots?[slot]
            guard let new, !rebuilt.contains(new) else { return nil }
            return new
        }
    }
    /// For a scope instance: the app values the fetch in flight asks for.
    var fetching: [Int] = []
    /// App values a fetch of this build could not get, and why (the app's failure).
    var failedFetch: FailedFetch?
    /// Whether a failure in this build failed a request (its end then traces `build.failed`).
    var failedARequest = false

    /// App values a scope instance's build could not fetch: they settle like failed nodes.
    struct FailedFetch {
        var slots: Set<Int>
        /// The app's error, which the requests that need one of them get.
        var error: ContainerError
        /// The app's failed nodes the build's skipped members named (set when the build ends):
        /// the roots of its failure.
        var namedRoots: [String] = []

        /// The app's failed nodes behind `name`, an app value the build could not fetch: the
        /// node itself when it failed, the failed nodes it was skipped for, else (its value was
        /// made, but the app's request failed as a whole) the nodes that failed the app's build.
        func failedRoots(behind name: String) -> [String] {
            guard let report = error.report else { return [name] }
            switch report.outcome(of: name) {
            case .failed?: return [name]
            case .skipped(let because)?: return because
            default: return report.failedNodes.isEmpty ? [name] : report.failedNodes
            }
        }
    }

    /// A build of a graph of `nodeCount` nodes, with room for `members` members.
    init(id: Int, build: BuildAttempt, nodeCount: Int, priority: UInt8, members: Int = 0) {
        self.id = id
        self.build = build
        self.priority = priority
        records = BuildRecords(count: nodeCount, capacity: members)
    }

    var isLaunched: Bool { ticket != nil }

    /// ``reused`` and ``added``.
    private struct Traced {
        var reused: SlotSet?
        var added: [(nodes: [String], caller: String)] = []
    }

    /// Changes what a traced build keeps (and stores it only when there is something to keep).
    private mutating func tracing(_ change: (inout Traced) -> Void) {
        var value = traced.value ?? Traced()
        change(&value)
        traced = OutOfLine(value.reused == nil && value.added.isEmpty ? nil : value)
    }

    /// Whether a launched build has nothing running and nothing it can start: it is over (its
    /// members that never started wait for a node that failed, or it was stopped).
    var isOver: Bool { isLaunched && running == 0 && !awaitingApp && (stopped || ready.isEmpty) }

    /// Starts the fetch of `slots` (by default every slot of ``toFetch``, which empties):
    /// the ready members wait for it to end, and a failed fetch settles exactly these slots.
    /// Returns the slots to fetch.
    mutating func beginFetch(_ slots: [Int]? = nil) -> [Int] {
        let asked = slots ?? toFetch
        if slots == nil { toFetch = [] }
        awaitingApp = true
        fetching = asked
        return asked
    }

    /// Whether `slot` is a member.
    func isMember(_ slot: Int) -> Bool { records.isRecorded(slot) }

    /// Whether member `slot` has settled (an outcome other than pending).
    func isSettled(_ slot: Int) -> Bool { records.isRecorded(slot) && records[slot].status != .pending }

    /// Adds member `slot`, waiting for `missing` dependencies.
    mutating func add(_ slot: Int, waitingFor missing: Int) {
        records.add(slot, waiting: missing)
        unstarted += 1
    }

    /// One dependency of member `slot` got a value; returns whether it can start now (it waited
    /// for that one value only; a member that waits for nothing has started, or is ready).
    mutating func dependencyArrived(for slot: Int) -> Bool {
        records.dependencyArrived(for: slot)
    }

    /// Member `slot` of a launched build ended with `result`: it no longer runs, and its record
    /// has the outcome, the runs, the times and where it ran.
    mutating func recordEnd(_ result: NodeResult) {
        running -= 1
        records[result.slot] = .init(
            status: result.status, runs: result.runs, startedAt: result.startedAt, endedAt: result.endedAt,
            executor: result.executor, priority: result.priority, opensBatch: result.opensBatch)
    }

    /// The slots of the members, in the order they joined.
    var members: [Int] { records.slots }
}
