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

    /// The records kept, by position (see `positions`).
    private var records: [Record]
    /// Empty: every slot below `records.count` has a record at its own position, the others
    /// (a scope part's external nodes) were reused. Otherwise, by slot, its record's
    /// position + 1, or 0 for a slot without one, which was reused: a build of a few nodes of a
    /// large graph fills a few records and zeroes an array of integers, not 40 bytes per node.
    private var positions: [Int32] = []
    /// The outcomes of failed and skipped nodes, by slot.
    private var details: [Int: NodeOutcome] = [:]

    /// A pending record for each of `count` nodes (a full build).
    init(count: Int) { records = Self.pending(count) }

    /// A pending record for each node of `slots` (ascending), among `count`; every other node
    /// was reused.
    init(count: Int, recording slots: [Int]) {
        records = Self.pending(min(slots.count, count))
        guard slots.count < count else { return }
        var positions = [Int32](repeating: 0, count: count)
        for (position, slot) in slots.enumerated() { positions[slot] = Int32(truncatingIfNeeded: position + 1) }
        self.positions = positions
    }

    /// A pending record for each of the first `recorded` of `count` nodes, the others reused
    /// (a scope instance's first build: its own services, then the app services it uses).
    init(count: Int, recordingFirst recorded: Int) { records = Self.pending(recorded) }

    /// `count` pending records. A few (a scope instance's) are appended to a reserved array:
    /// `Array(repeating:count:)` allocates through an unspecialized path of the standard
    /// library that looks the storage's metadata up at run time, about 800 instructions, more
    /// than the build of a small scope part spends on its records otherwise.
    private static func pending(_ count: Int) -> [Record] {
        guard count <= 64 else { return [Record](repeating: Record(), count: count) }
        var records: [Record] = []
        records.reserveCapacity(count)
        for _ in 0..<count { records.append(Record()) }
        return records
    }

    /// Whether `slot` has a record of its own (it was to be built).
    func isRecorded(_ slot: Int) -> Bool { positions.isEmpty ? slot < records.count : positions[slot] != 0 }

    /// The record of `slot`; a slot without one reads as reused, and cannot be written.
    subscript(slot: Int) -> Record {
        get {
            if positions.isEmpty { return slot < records.count ? records[slot] : Self.reused }
            let position = Int(positions[slot])
            return position == 0 ? Self.reused : records[position - 1]
        }
        set {
            if positions.isEmpty {
                records[slot] = newValue
            } else {
                let position = Int(positions[slot])
                precondition(position > 0, "slot \(slot) was reused: it has no record to write")
                records[position - 1] = newValue
            }
        }
    }

    /// The record of a reused node.
    private static let reused = Record(status: .reused, runs: 0, startedAt: nil, endedAt: nil)

    /// Records that `slot` failed.
    mutating func failed(_ slot: Int, _ failure: NodeFailure) {
        details[slot] = .failed(failure)
    }

    /// Records that `slot` was skipped because these upstream nodes failed.
    mutating func skipped(_ slot: Int, because: [String]) {
        self[slot].status = .skipped
        details[slot] = .skipped(because: because)
    }

    /// The report of each node of `names` (slot order, from slot 0).
    func reports(names: ArraySlice<String>) -> [BuildReport.NodeReport] {
        names.indices.map { report(of: $0, name: names[$0]) }
    }

    /// The report of `slot`, called `name`.
    func report(of slot: Int, name: String) -> BuildReport.NodeReport {
        let record = self[slot]
        return BuildReport.NodeReport(
            name: name, outcome: outcome(slot), runs: record.runs, startedAt: record.startedAt,
            endedAt: record.endedAt)
    }

    /// `nil` when each node of `slots` has a value; otherwise permanent if any failed
    /// permanently, else transient (see ``BuildReport/failure``).
    func failure(among slots: some Sequence<Int>) -> FailureKind? {
        var failure: FailureKind?
        for slot in slots {
            switch self[slot].status {
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
