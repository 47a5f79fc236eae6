/// What a report reads of a build's records: each member's record, found by slot, and the
/// outcomes of those that failed or were skipped. A build keeps more beside it while it runs
/// (see ``BuildRecords``); a finished build's report keeps only this.
struct RecordTable: Sendable {
    typealias Record = BuildRecords.Record
    typealias Status = BuildRecords.Status

    /// The records of the build's nodes, in the order they joined it.
    var records: [Record] = []
    /// Each member's record, by slot (see ``MemberPlaces``: a build of a few nodes of a large
    /// graph costs what they do).
    var places: MemberPlaces
    /// The outcomes of failed and skipped nodes, by slot.
    var details: [Int: NodeOutcome] = [:]

    /// No records yet, for a graph of `count` nodes, with room for `capacity`.
    init(count: Int, capacity: Int = 0) {
        places = MemberPlaces(count: count, capacity: capacity)
        records.reserveCapacity(capacity)
    }

    /// Whether `slot` has a record of its own (it was to be built).
    func isRecorded(_ slot: Int) -> Bool { places[slot] != 0 }

    /// The record of `slot`; a slot without one reads as reused.
    subscript(slot: Int) -> Record {
        let position = places[slot]
        return position == 0 ? Self.reused : records[position - 1]
    }

    /// The record of a reused node.
    private static let reused = Record(status: .reused, runs: 0, startedAt: nil, endedAt: nil)

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
    func worstFailure(
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
