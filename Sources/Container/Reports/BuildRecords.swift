/// Every node's part of the report, filled in as a build goes.
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

    /// The records of the build's nodes, in the order they joined it.
    private var records: [Record] = []
    /// How many dependencies each record's node still waits for, by record (pending nodes only).
    private var waits: [Int32] = []
    /// Each member's record, by slot (see ``MemberPlaces``: a build of a few nodes of a large
    /// graph costs what they do).
    private var places: MemberPlaces
    /// The outcomes of failed and skipped nodes, by slot.
    private var details: [Int: NodeOutcome] = [:]
    /// The slots with a record, in the order they joined.
    private(set) var slots: [Int] = []
    /// The records that settled, once a report of the build in flight was asked for (see
    /// ``SettledLog``): `nil` in a build that answers everything at its end.
    private var settledLog: SettledLog?
    /// `nil` while every member that settled has a value; otherwise permanent if any failed
    /// permanently, else transient (kept as they settle: a growing build publishes a report
    /// for each request it answers).
    private(set) var settledFailure: FailureKind?

    /// No records yet, for a graph of `count` nodes, with room for `capacity`.
    init(count: Int, capacity: Int = 0) {
        places = MemberPlaces(count: count, capacity: capacity)
        records.reserveCapacity(capacity)
        waits.reserveCapacity(capacity)
        slots.reserveCapacity(capacity)
    }

    /// A pending record for each of `slots` among `count` nodes (tests).
    init(count: Int, recording slots: [Int]) {
        self.init(count: count)
        for slot in slots { add(slot) }
    }

    /// How many nodes the build builds.
    var count: Int { records.count }

    /// The records of no build (of a graph without nodes).
    static let none = BuildRecords(count: 0)

    /// Gives `slot` a pending record, waiting for `waiting` dependencies: the build builds it.
    mutating func add(_ slot: Int, waiting: Int = 0) {
        guard places[slot] == 0 else { return }
        records.append(Record())
        waits.append(Int32(truncatingIfNeeded: waiting))
        places.insert(records.count, at: slot)
        slots.append(slot)
    }

    /// These records without the order the members joined in (what a finished build's report
    /// does not read), nor the log of settled ones.
    func withoutMembers() -> BuildRecords {
        var records = self
        records.slots = []
        // A report keeps no log: only the build appends to it (see ``SettledLog``).
        records.settledLog = nil
        return records
    }

    /// Whether `slot` has a record of its own (it was to be built).
    func isRecorded(_ slot: Int) -> Bool { places[slot] != 0 }

    /// The record of `slot`; a slot without one reads as reused, and cannot be written.
    subscript(slot: Int) -> Record {
        get {
            let position = places[slot]
            return position == 0 ? Self.reused : records[position - 1]
        }
        set {
            let position = places[slot]
            precondition(position > 0, "slot \(slot) was reused: it has no record to write")
            if newValue.status != .pending && records[position - 1].status == .pending {
                settled(newValue, of: slot)
            }
            records[position - 1] = newValue
        }
    }

    /// `record` of `slot` is its outcome: the failure so far and the log follow.
    private mutating func settled(_ record: Record, of slot: Int) {
        switch record.status {
        case .pending, .succeeded, .reused: break
        case .failed, .cancelledWhileRunning, .cancelledBeforeStart, .skipped:
            if settledFailure == nil { settledFailure = .transient }
        }
        settledLog = settledLog?.appending(record, of: slot)
    }

    /// The records settled so far, for a report of the build in flight: the first call logs
    /// the members settled until then, later ones share the log (a report costs what settled
    /// since the last one, not every member again).
    mutating func settledView(graphCount: Int) -> SettledRecords {
        if settledLog == nil {
            var log = SettledLog.withCapacity(records.count)
            for (index, record) in records.enumerated() where record.status != .pending {
                log = log.appending(record, of: slots[index])
            }
            settledLog = log
        }
        return SettledRecords(log: settledLog!, count: settledLog!.count, details: details, graphCount: graphCount)
    }

    /// Gives the failed and skipped nodes these outcomes (a report's records made from a log).
    mutating func setDetails(_ details: [Int: NodeOutcome]) { self.details = details }

    /// The dependencies member `slot` still waits for. Inlined: a node's end reads and writes
    /// one per dependent.
    @inline(__always)
    subscript(waiting slot: Int) -> Int32 {
        get {
            let position = places[slot]
            return position == 0 ? 0 : waits[position - 1]
        }
        set {
            let position = places[slot]
            precondition(position > 0, "slot \(slot) is not a member")
            waits[position - 1] = newValue
        }
    }

    /// One dependency of member `slot` got a value; returns whether that was the last it waited
    /// for (one lookup of its place: a node's end calls it once per dependent).
    @inline(__always)
    mutating func dependencyArrived(for slot: Int) -> Bool {
        let position = places[slot]
        guard position > 0, waits[position - 1] > 0 else { return false }
        waits[position - 1] -= 1
        return waits[position - 1] == 0
    }

    /// The record of a reused node.
    private static let reused = Record(status: .reused, runs: 0, startedAt: nil, endedAt: nil)

    /// Records that `slot` failed.
    mutating func failed(_ slot: Int, _ failure: NodeOutcome.Failure) {
        details[slot] = .failed(failure)
        if failure.kind == .permanent { settledFailure = .permanent }
    }

    /// Records that `slot` was skipped because these upstream nodes failed.
    mutating func skipped(_ slot: Int, because: [String]) {
        self[slot].status = .skipped
        details[slot] = .skipped(because: because)
    }

    /// The report of each node of `names` (slot order, from slot 0) that has an outcome: a
    /// report of a build in flight (a request's failure while other nodes run) lacks the others.
    func reports(
        names: ArraySlice<String>, excluding isUnbuilt: (Int) -> Bool = { _ in false }
    ) -> [BuildReport.NodeReport] {
        names.indices.compactMap { slot in
            self[slot].status == .pending || isUnbuilt(slot) ? nil : report(of: slot, name: names[slot])
        }
    }

    /// Whether `slot` has an outcome yet.
    func hasOutcome(_ slot: Int) -> Bool { self[slot].status != .pending }

    /// The report of `slot`, called `name`.
    func report(of slot: Int, name: String) -> BuildReport.NodeReport {
        let record = self[slot]
        return BuildReport.NodeReport(
            name: name, outcome: outcome(slot), runs: record.runs, startedAt: record.startedAt,
            endedAt: record.endedAt, executor: record.executor, priority: record.priority)
    }

    /// How many batches (hops to the main actor) ran the build's main-actor nodes.
    var mainActorBatches: Int { records.count(where: \.opensBatch) }

    /// How long the nodes that ran on the main actor took, together.
    var mainActorTime: Duration {
        var total = Duration.zero
        for record in records where record.executor.isMain {
            if let start = record.startedAt, let end = record.endedAt { total += end - start }
        }
        return total
    }

    /// `nil` when each node of `slots` has a value; otherwise permanent if any failed
    /// permanently, else transient (see ``BuildReport/failure``).
    func failure(among slots: some Sequence<Int>) -> FailureKind? {
        worstFailure(of: slots.lazy.map { (self[$0].status, $0) }, pendingFails: true)
    }

    /// The failure of `outcomes` (a node's status and slot): permanent at the first permanent
    /// failure, else transient if any node has no value (a pending one only when `pendingFails`).
    private func worstFailure(
        of outcomes: some Sequence<(status: Status, slot: Int)>, pendingFails: Bool
    ) -> FailureKind? {
        var failure: FailureKind?
        for (status, slot) in outcomes {
            switch status {
            case .succeeded, .reused: continue
            case .pending: if pendingFails { failure = .transient }
            case .failed:
                if case .failed(let nodeFailure) = details[slot], nodeFailure.kind == .permanent { return .permanent }
                failure = .transient
            case .cancelledWhileRunning, .cancelledBeforeStart, .skipped: failure = .transient
            }
        }
        return failure
    }

    /// The slots among the first `count` whose node failed, ascending.
    func failedSlots(count: Int) -> [Int] {
        (0..<count).filter { self[$0].status == .failed }
    }

    /// The provider runs of each of the first `count` nodes that ran.
    func runs(count: Int) -> [(slot: Int, runs: Int)] {
        (0..<count).compactMap { self[$0].runs > 0 ? ($0, self[$0].runs) : nil }
    }

    /// The outcome of `slot`, once the build has given every node one.
    private func outcome(_ slot: Int) -> NodeOutcome {
        let record = self[slot]
        switch record.status {
        case .succeeded:
            // Both times are set by the run that succeeded (see `NodeResult`).
            guard let start = record.startedAt, let end = record.endedAt else {
                preconditionFailure("succeeded node \(slot) without its times")
            }
            return .succeeded(duration: end - start)
        case .reused: return .reused
        case .cancelledWhileRunning: return .cancelled(.whileRunning)
        case .cancelledBeforeStart: return .cancelled(.beforeStart)
        case .failed, .skipped:
            guard let outcome = details[slot] else {
                preconditionFailure("no details for \(record.status) node \(slot)")
            }
            return outcome
        case .pending: preconditionFailure("node \(slot) has no outcome")
        }
    }
}
