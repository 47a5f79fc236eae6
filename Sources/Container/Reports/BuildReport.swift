/// What one build attempt did, node by node.
public struct BuildReport: Sendable, CustomStringConvertible {
    /// One node's part in the build.
    public struct NodeReport: Sendable, Hashable {
        /// The node's name.
        public let name: String
        /// How it ended.
        public let outcome: NodeOutcome
        // The times and the run count packed: two optional durations and an `Int` took 104 bytes
        // per node, this 88, in every snapshot's report (a scope instance keeps one per service).
        private let start: Duration
        private let end: Duration
        private let runCount: Int32
        /// Bit 0: `start` is set; bit 1: `end` is set (an unset one is `.zero`); bit 2: it ran
        /// on the main actor.
        private let times: UInt8
        /// The `TaskPriority.rawValue` it ran at (0: it did not run).
        private let priorityValue: UInt8

        /// A node's report.
        init(
            name: String, outcome: NodeOutcome, runs: Int, startedAt: Duration?, endedAt: Duration?,
            executor: Executor = .pool, priority: UInt8 = 0
        ) {
            self.name = name
            self.outcome = outcome
            self.start = startedAt ?? .zero
            self.end = endedAt ?? .zero
            self.runCount = Int32(clamping: runs)
            self.times = (startedAt == nil ? 0 : 1) | (endedAt == nil ? 0 : 2) | (executor.isMain ? 4 : 0)
            self.priorityValue = priority
        }

        /// Where its provider ran: the build's threads, or the main actor (a main-actor
        /// service, see <doc:LaunchTiers>).
        public var executor: Executor { times & 4 != 0 ? .main : .pool }
        /// The priority its provider ran at; `nil` when it did not run in this build.
        public var priority: ServicePriority? { priorityValue == 0 ? nil : ServicePriority(rawValue: priorityValue) }

        /// How many times its provider ran in this attempt (retries included; 0 when it did not run).
        public var runs: Int { Int(runCount) }
        /// When its provider first started, since the container was created.
        public var startedAt: Duration? { times & 1 != 0 ? start : nil }
        /// When it reached its outcome, since the container was created.
        public var endedAt: Duration? { times & 2 != 0 ? end : nil }
    }

    /// The generation built.
    public let generation: Int
    /// The attempt within the generation (1-based).
    public let attempt: Int
    /// Every node the build built, tried or found with a value (reused), in declaration order.
    ///
    /// A service the build did not need and that has no value (a lazy service nobody asked
    /// for) is not in it, nor, in the report of a build still going on (a snapshot published
    /// for a request it answered), a node that has not reached its outcome yet.
    ///
    /// Made on each access from the build's compact records: most reports are never read
    /// node by node, and making 10,000 reports (and freeing them with the snapshot) cost more
    /// than building the one node a partial reset rebuilds.
    public var nodes: [NodeReport] {
        switch storage {
        case .reports(let reports): reports
        case .records(let recorded): recorded.reports
        }
    }
    /// The nodes' reports, as given or as the build's records.
    private let storage: Storage
    /// When the build started and ended, since the container was created.
    public let startedAt: Duration
    /// See ``startedAt``.
    public let endedAt: Duration
    /// Whether the build was cancelled by a reset or shutdown.
    public let wasCancelled: Bool
    /// `nil` when every node has a value; otherwise permanent if any node failed permanently,
    /// else transient. Computed once: the coordinator asks several times per build, and each
    /// answer was a pass over every node.
    public let failure: FailureKind?

    /// Where the nodes' reports come from: one reference either way, so a report (kept by
    /// every snapshot, status and error, and a scope instance has several) stays small.
    private enum Storage: Sendable {
        /// Made by the caller (tests).
        case reports([NodeReport])
        /// A build's records and the names of its nodes.
        case records(Recorded)
    }

    /// A build's records and the names of its nodes (the graph's array, shared).
    private final class Recorded: Sendable {
        /// The graph's names (one per slot), and how many of them are the built graph's (a
        /// scope instance's part ends with its app services): an array and a 32-bit count after
        /// the records, where a slice took twice the room (a scope instance keeps one report per
        /// build, and this object then fits a smaller malloc size class).
        private let allNames: [String]
        private let storage: RecordsStorage
        private let nameCount: Int32

        /// The records of a finished build and the slots it leaves out (those the build neither
        /// built nor found with a value: a lazy service nobody asked for); or those settled so
        /// far in a build in flight, made into records when read (most reports never are).
        private enum RecordsStorage: Sendable {
            case records(RecordTable, unbuilt: UnbuiltSlots)
            case settled(SettledRecords)
        }

        init(_ records: BuildRecords, names: [String], count: Int, unbuilt: UnbuiltSlots) {
            // What the build alone reads (the members' join order, their waits) stays behind.
            self.storage = .records(records.table, unbuilt: unbuilt)
            self.allNames = names
            self.nameCount = Int32(truncatingIfNeeded: count)
        }

        init(_ settled: SettledRecords, names: [String], count: Int) {
            self.storage = .settled(settled)
            self.allNames = names
            self.nameCount = Int32(truncatingIfNeeded: count)
        }

        /// The records, made from the settled log for a build in flight.
        var records: RecordTable {
            switch storage {
            case .records(let records, _): records
            case .settled(let settled): settled.materialized(nodeCount: allNames.count)
            }
        }

        var names: ArraySlice<String> { allNames[..<Int(nameCount)] }

        /// Whether the report leaves `slot` out, given ``records``.
        private func isUnbuilt(_ slot: Int, records: RecordTable) -> Bool {
            switch storage {
            case .records(_, let unbuilt): unbuilt.contains(slot, records: records)
            case .settled(let settled): UnbuiltSlots.outside(valued: settled.valued).contains(slot, records: records)
            }
        }

        /// The reports of the nodes the build built or reused, in slot order.
        var reports: [NodeReport] {
            let records = self.records
            return records.reports(names: names) { isUnbuilt($0, records: records) }
        }

        /// The report of `slot`, called `name`, unless the report leaves it out.
        func report(of slot: Int, name: String) -> NodeReport? {
            let records = self.records
            guard records.hasOutcome(slot), !isUnbuilt(slot, records: records) else { return nil }
            return records.report(of: slot, name: name)
        }
    }

    /// The slots a report leaves out: those its build neither built nor found with a value.
    enum UnbuiltSlots: Sendable {
        /// None: every slot was built or reused.
        case none
        /// The slots without a record that are not among `valued`, the slots that had a value
        /// when the report was made (found when read: a build of a few nodes of a large graph
        /// ends often; bits, so that a report keeps no value alive).
        case outside(valued: SlotSet)

        func contains(_ slot: Int, records: RecordTable) -> Bool {
            switch self {
            case .none: false
            case .outside(let valued): !records.isRecorded(slot) && !valued.contains(slot)
            }
        }
    }

    init(
        generation: Int, attempt: Int, nodes: [NodeReport], startedAt: Duration, endedAt: Duration, wasCancelled: Bool
    ) {
        self.init(
            generation: generation, attempt: attempt, storage: .reports(nodes), failure: Self.failure(of: nodes),
            startedAt: startedAt, endedAt: endedAt, wasCancelled: wasCancelled)
    }

    /// The report of a build from its records of the nodes called by the first `nameCount` of
    /// `names` (slot order, from slot 0), of which only those of `built` may lack a value (every other was reused, but
    /// those of `unbuilt`, which the build did not need and which have no value).
    init(
        generation: Int, attempt: Int, records: BuildRecords, names: [String], nameCount: Int, built: [Int],
        unbuilt: UnbuiltSlots = .none, startedAt: Duration, endedAt: Duration, wasCancelled: Bool
    ) {
        self.init(
            generation: generation, attempt: attempt, records: records, names: names, nameCount: nameCount,
            failure: records.failure(among: built), unbuilt: unbuilt, startedAt: startedAt, endedAt: endedAt,
            wasCancelled: wasCancelled)
    }

    /// The report of a build from its records, whose `failure` is known.
    init(
        generation: Int, attempt: Int, records: BuildRecords, names: [String], nameCount: Int,
        failure: FailureKind?, unbuilt: UnbuiltSlots, startedAt: Duration, endedAt: Duration, wasCancelled: Bool
    ) {
        self.init(
            generation: generation, attempt: attempt,
            storage: .records(Recorded(records, names: names, count: nameCount, unbuilt: unbuilt)),
            failure: failure, startedAt: startedAt, endedAt: endedAt, wasCancelled: wasCancelled)
    }

    /// The report of a build in flight from the records settled so far (see ``SettledRecords``).
    init(
        generation: Int, attempt: Int, settled: SettledRecords, names: [String], nameCount: Int,
        failure: FailureKind?, startedAt: Duration, endedAt: Duration
    ) {
        self.init(
            generation: generation, attempt: attempt,
            storage: .records(Recorded(settled, names: names, count: nameCount)),
            failure: failure, startedAt: startedAt, endedAt: endedAt, wasCancelled: false)
    }

    private init(
        generation: Int, attempt: Int, storage: Storage, failure: FailureKind?, startedAt: Duration,
        endedAt: Duration, wasCancelled: Bool
    ) {
        self.generation = generation
        self.attempt = attempt
        self.storage = storage
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.wasCancelled = wasCancelled
        self.failure = failure
    }

    /// How many nodes the report has.
    var nodeCount: Int {
        switch storage {
        case .reports(let reports): reports.count
        case .records(let recorded): recorded.names.count
        }
    }

    /// The provider runs of each node that ran, by slot (for the coordinator's run counts).
    var runsBySlot: [(slot: Int, runs: Int)] {
        switch storage {
        case .reports(let reports): reports.indices.compactMap { reports[$0].runs > 0 ? ($0, reports[$0].runs) : nil }
        case .records(let recorded): recorded.records.runs(count: recorded.names.count)
        }
    }

    /// The generation and attempt built.
    public var build: BuildAttempt { BuildAttempt(generation: generation, attempt: attempt) }

    /// Wall time of the build.
    public var duration: Duration { endedAt - startedAt }

    /// The nodes that failed (the roots of the failure), in declaration order.
    public var failedNodes: [String] {
        switch storage {
        case .reports(let reports): reports.compactMap { if case .failed = $0.outcome { $0.name } else { nil } }
        case .records(let recorded):
            // No failure, no failed node: a build of a few nodes of a large graph skips the scan.
            failure == nil ? [] : recorded.records.failedSlots(count: recorded.names.count).map { recorded.names[$0] }
        }
    }

    /// See ``failure``.
    private static func failure(of nodes: [NodeReport]) -> FailureKind? {
        var failure: FailureKind?
        for node in nodes {
            switch node.outcome {
            case .succeeded, .reused: continue
            case .failed(let nodeFailure) where nodeFailure.kind == .permanent: return .permanent
            case .failed, .skipped, .cancelled: failure = .transient
            }
        }
        return failure
    }

    /// Whether every node has a value.
    public var succeeded: Bool { failure == nil && !wasCancelled }

    /// How long the main-actor nodes of the build ran, together: the main actor runs them one
    /// after another, so a build with main-actor services takes at least this long (its
    /// critical path counts them end to end). An asynchronous provider that suspends frees the
    /// main actor meanwhile, so this is an upper bound of the main actor's work.
    public var mainActorTime: Duration {
        switch storage {
        case .reports(let reports):
            reports.reduce(.zero) { total, node in
                guard node.executor == .main, let start = node.startedAt, let end = node.endedAt else { return total }
                return total + (end - start)
            }
        case .records(let recorded): recorded.records.mainActorTime
        }
    }

    /// How many times the build went to the main actor: each hop runs the main-actor nodes ready
    /// then, and those that become ready while it runs, one after another (0 for a report made
    /// from node reports).
    public var mainActorBatches: Int {
        switch storage {
        case .reports: 0
        case .records(let recorded): recorded.records.mainActorBatches
        }
    }

    /// The report of `name`, if ``nodes`` has it.
    public func node(_ name: String) -> NodeReport? {
        switch storage {
        case .reports(let reports): reports.first { $0.name == name }
        case .records(let recorded):
            recorded.names.firstIndex(of: name).flatMap { recorded.report(of: $0, name: name) }
        }
    }

    /// The outcome of `name`, if ``nodes`` has it.
    public func outcome(of name: String) -> NodeOutcome? { node(name)?.outcome }

    public var description: String {
        let state = succeeded ? "succeeded" : wasCancelled ? "cancelled" : "failed (\(failure?.description ?? "?"))"
        var lines = [
            "build of generation \(generation), attempt \(attempt): \(state) in \(duration.formattedMilliseconds)"
                + (mainActorTime > .zero ? " (main actor \(mainActorTime.formattedMilliseconds))" : "")
        ]
        for node in nodes { lines.append("  \(node.name): \(node.outcome)") }
        return lines.joined(separator: "\n")
    }
}
