/// What one node's run produced, handed from its child task to the builder.
struct NodeResult: Sendable {
    let slot: Int
    /// `.succeeded`, `.failed` or `.cancelledWhileRunning`.
    let status: BuildRecords.Status
    /// The value, when it succeeded.
    let box: AnyServiceBox?
    /// The failure, when it failed.
    let failure: NodeFailure?
    let runs: Int
    /// When the provider first started, and when the node reached its outcome.
    let startedAt: Duration
    let endedAt: Duration
}

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
    /// graph's records are read and written once per node and should stay in cache.
    struct Record {
        private var start = Duration.zero
        private var end = Duration.zero
        private var runCount: Int32 = 0
        var status = Status.pending
        /// Bit 0: `start` is set; bit 1: `end` is set.
        private var times: UInt8 = 0

        init() {}

        init(status: Status, runs: Int, startedAt: Duration?, endedAt: Duration?) {
            self.status = status
            self.runs = runs
            self.startedAt = startedAt
            self.endedAt = endedAt
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

    private var records: [Record]
    /// The outcomes of failed and skipped nodes, by slot.
    private var details: [Int: NodeOutcome] = [:]

    /// `count` records of `status` (pending: a full build; reused: a build of a few slots, which
    /// then marks those pending).
    init(count: Int, status: Status = .pending) {
        var record = Record()
        record.status = status
        records = [Record](repeating: record, count: count)
    }

    subscript(slot: Int) -> Record {
        get { records[slot] }
        set { records[slot] = newValue }
    }

    /// Records that `slot` failed.
    mutating func failed(_ slot: Int, _ failure: NodeFailure) {
        details[slot] = .failed(failure)
    }

    /// Records that `slot` was skipped because these upstream nodes failed.
    mutating func skipped(_ slot: Int, because: [String]) {
        records[slot].status = .skipped
        details[slot] = .skipped(because: because)
    }

    /// The report of each node of `names` (slot order, from slot 0).
    func reports(names: ArraySlice<String>) -> [BuildReport.NodeReport] {
        names.indices.map { report(of: $0, name: names[$0]) }
    }

    /// The report of `slot`, called `name`.
    func report(of slot: Int, name: String) -> BuildReport.NodeReport {
        let record = records[slot]
        return BuildReport.NodeReport(
            name: name, outcome: outcome(slot), runs: record.runs, startedAt: record.startedAt,
            endedAt: record.endedAt)
    }

    /// `nil` when each node of `slots` has a value; otherwise permanent if any failed
    /// permanently, else transient (see ``BuildReport/failure``).
    func failure(among slots: some Sequence<Int>) -> FailureKind? {
        var failure: FailureKind?
        for slot in slots {
            switch records[slot].status {
            case .succeeded, .reused: continue
            case .failed:
                if case .failed(let nodeFailure) = details[slot], nodeFailure.kind == .permanent { return .permanent }
                failure = .transient
            case .pending, .cancelledWhileRunning, .cancelledBeforeStart, .skipped: failure = .transient
            }
        }
        return failure
    }

    /// The slots among the first `count` whose node failed, ascending.
    func failedSlots(count: Int) -> [Int] {
        (0..<count).filter { records[$0].status == .failed }
    }

    /// The provider runs of each of the first `count` nodes that ran.
    func runs(count: Int) -> [(slot: Int, runs: Int)] {
        (0..<count).compactMap { records[$0].runs > 0 ? ($0, records[$0].runs) : nil }
    }

    /// The outcome of `slot`, once the build has given every node one.
    private func outcome(_ slot: Int) -> NodeOutcome {
        let record = records[slot]
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

/// What a build attempt hands back to the coordinator.
struct BuildResult: Sendable {
    /// How every node ended.
    let report: BuildReport
    /// Values this attempt made (not the reused ones), by slot: they must be kept or torn down.
    let built: SlotValues
    /// Every node's value by slot, the snapshot's, when every node has one; `nil` otherwise.
    let values: SlotValues?
    /// For a scope instance: the app generation whose values it used.
    var appGeneration: Int? = nil

    init(
        report: BuildReport, built: SlotValues, values: SlotValues?, appGeneration: Int? = nil
    ) {
        self.report = report
        self.built = built
        self.values = values
        self.appGeneration = appGeneration
    }

    /// A result given as dictionaries and optionals by slot (tests).
    init(report: BuildReport, built: [Int: AnyServiceBox], values: [AnyServiceBox?], appGeneration: Int? = nil) {
        let complete = values.allSatisfy { $0 != nil } ? SlotValues(values) : nil
        self.init(report: report, built: SlotValues(built), values: complete, appGeneration: appGeneration)
    }
}
