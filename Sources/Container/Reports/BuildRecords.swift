/// Every node's part of the report, filled in as a build goes: the ``RecordTable`` a report
/// keeps, and what only the build reads beside it (each member's waits, the order members
/// joined in, the log of settled records a build in flight shares with its reports).
///
/// Plain data per node (no reference counting, no enum payload to copy through a value witness
/// on every write); the few failures and skips keep their details aside. The report's
/// ``NodeOutcome``s are made once, at the end.
struct BuildRecords: Sendable {
    /// Where a node is.
    enum Status: UInt8 {
        case pending, succeeded, reused, failed, cancelledWhileRunning, cancelledBeforeStart, skipped
    }

    /// One node's record: 40 bytes (two optional durations and an `Int` took 64), a large
    /// graph's records are read and written once per node and should stay in cache. How many
    /// dependencies it waits for is kept beside it (see ``waits``), read once per dependency.
    struct Record {
        private var start = Duration.zero
        private var end = Duration.zero
        private var runCount: Int32 = 0
        var status = Status.pending
        /// Bit 0: `start` is set; bit 1: `end` is set; bit 2: it ran on the main actor; bit 3:
        /// it was the first of a main-actor batch.
        private var times: UInt8 = 0
        /// The `TaskPriority.rawValue` it ran at; 0 when it did not run.
        var priority: UInt8 = 0

        init() {}

        init(
            status: Status, runs: Int, startedAt: Duration?, endedAt: Duration?, executor: BuildReport.Executor = .pool,
            priority: UInt8 = 0, opensBatch: Bool = false
        ) {
            self.status = status
            self.runs = runs
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.executor = executor
            self.priority = priority
            if opensBatch { times |= 8 }
        }

        /// Whether it was the first node of a main-actor batch (one hop to the main actor).
        var opensBatch: Bool { times & 8 != 0 }

        /// Where it ran.
        var executor: BuildReport.Executor {
            get { times & 4 != 0 ? .main : .pool }
            set { times = newValue.isMain ? times | 4 : times & ~4 }
        }

        var runs: Int {
            get { Int(runCount) }
            set { runCount = Int32(clamping: newValue) }
        }

        var startedAt: Duration? {
            get { times & 1 != 0 ? start : nil }
            set {
                start = newValue ?? .zero
                times = newValue == nil ? times & ~1 : times | 1
            }
        }

        var endedAt: Duration? {
            get { times & 2 != 0 ? end : nil }
            set {
                end = newValue ?? .zero
                times = newValue == nil ? times & ~2 : times | 2
            }
        }
    }

    /// The members' records and what a report reads of them.
    private(set) var table: RecordTable
    /// How many dependencies each record's node still waits for, by record (pending nodes only).
    private var waits: [Int32] = []
    /// The slots with a record, in the order they joined.
    private(set) var slots: [Int] = []
    /// The records that settled, once a report of the build in flight was asked for (see
    /// ``SettledLog``): `nil` in a build that answers everything at its end.
    private var settledLog: SettledLog?

    /// No records yet, for a graph of `count` nodes, with room for `capacity`.
    init(count: Int, capacity: Int = 0) {
        table = RecordTable(count: count, capacity: capacity)
        waits.reserveCapacity(capacity)
        slots.reserveCapacity(capacity)
    }

    /// A pending record for each of `slots` among `count` nodes (tests).
    init(count: Int, recording slots: [Int]) {
        self.init(count: count)
        for slot in slots { add(slot) }
    }

    /// How many nodes the build builds.
    var count: Int { table.records.count }

    /// The records of no build (of a graph without nodes).
    static let none = BuildRecords(count: 0)

    /// Gives `slot` a pending record, waiting for `waiting` dependencies: the build builds it.
    mutating func add(_ slot: Int, waiting: Int = 0) {
        guard table.places[slot] == 0 else { return }
        table.records.append(Record())
        waits.append(Int32(truncatingIfNeeded: waiting))
        table.places.insert(table.records.count, at: slot)
        slots.append(slot)
    }

    /// Whether `slot` has a record of its own (it was to be built).
    func isRecorded(_ slot: Int) -> Bool { table.isRecorded(slot) }

    /// Whether `slot` has an outcome yet.
    func hasOutcome(_ slot: Int) -> Bool { table.hasOutcome(slot) }

    /// The record of `slot`; a slot without one reads as reused, and cannot be written.
    subscript(slot: Int) -> Record {
        get { table[slot] }
        set {
            let position = table.places[slot]
            precondition(position > 0, "slot \(slot) was reused: it has no record to write")
            if newValue.status != .pending && table.records[position - 1].status == .pending {
                settled(newValue, of: slot)
            }
            table.records[position - 1] = newValue
        }
    }

    /// `record` of `slot` is its outcome: the log of settled records follows, once there is one.
    private mutating func settled(_ record: Record, of slot: Int) {
        guard let log = settledLog else { return }
        // The node's own failure (its details, and so a permanent kind, come after: see `failed`).
        if log.failure == nil {
            log.failure = table.worstFailure(of: CollectionOfOne((record.status, slot)), pendingFails: false)
        }
        settledLog = log.appending(record, of: slot)
    }

    /// The records settled so far, for a report of the build in flight made when the `valued`
    /// slots have a value: the first call logs the members settled until then, later ones share
    /// the log (a report costs what settled since the last one, not every member again).
    mutating func settledView(valued: SlotSet) -> SettledRecords {
        let log = settledLog ?? startLog()
        settledLog = log
        return SettledRecords(log: log, count: log.count, details: table.details, valued: valued)
    }

    /// A log of the members settled so far, with their failure.
    private func startLog() -> SettledLog {
        var log = SettledLog.withCapacity(count)
        for (index, record) in table.records.enumerated() where record.status != .pending {
            log = log.appending(record, of: slots[index])
        }
        log.failure = settledFailure
        return log
    }

    /// `nil` while every member that settled has a value; otherwise permanent if any failed
    /// permanently, else transient: kept by the log as members settle once a growing build
    /// publishes reports, else read from the records.
    var settledFailure: FailureKind? {
        if let log = settledLog { return log.failure }
        return table.worstFailure(
            of: table.records.indices.lazy.map { (table.records[$0].status, slots[$0]) }, pendingFails: false)
    }

    /// The dependencies member `slot` still waits for. Inlined: a node's end reads and writes
    /// one per dependent.
    @inline(__always)
    subscript(waiting slot: Int) -> Int32 {
        get {
            let position = table.places[slot]
            return position == 0 ? 0 : waits[position - 1]
        }
        set {
            let position = table.places[slot]
            precondition(position > 0, "slot \(slot) is not a member")
            waits[position - 1] = newValue
        }
    }

    /// One dependency of member `slot` got a value; returns whether that was the last it waited
    /// for (one lookup of its place: a node's end calls it once per dependent).
    @inline(__always)
    mutating func dependencyArrived(for slot: Int) -> Bool {
        let position = table.places[slot]
        guard position > 0, waits[position - 1] > 0 else { return false }
        waits[position - 1] -= 1
        return waits[position - 1] == 0
    }

    /// Records that `slot` failed.
    mutating func failed(_ slot: Int, _ failure: NodeOutcome.Failure) {
        table.details[slot] = .failed(failure)
        if failure.kind == .permanent { settledLog?.failure = .permanent }
    }

    /// Records that `slot` was skipped because these upstream nodes failed.
    mutating func skipped(_ slot: Int, because: [String]) {
        self[slot].status = .skipped
        table.details[slot] = .skipped(because: because)
    }

    /// `nil` when each node of `slots` has a value; otherwise permanent if any failed
    /// permanently, else transient (see ``BuildReport/failure``).
    func failure(among slots: some Sequence<Int>) -> FailureKind? { table.failure(among: slots) }
}
