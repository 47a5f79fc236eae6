/// The records of a build's nodes that have settled, in the order they settled, kept for the
/// reports of snapshots published while the build goes on.
///
/// A build in flight publishes a snapshot each time it answers a request, and each snapshot
/// carries the report so far. Sharing the build's own records with the report made the next
/// node's end copy all of them (100 overlapping requests copied 645 records 100 times). A
/// settled record never changes, so the log is append-only: every report shares it and reads
/// only the entries that were there when it was made.
final class SettledLog: @unchecked Sendable {
    // Unchecked: entries and `failure` are written only by the coordinator, under its state
    // lock; entries are appended beyond the counts of every `SettledRecords` already made (made
    // under the same lock and published through it), never written again, and a reader reads
    // only below its count (and never `count` or `failure`).

    /// One settled node.
    struct Entry {
        let slot: Int
        let record: BuildRecords.Record
    }

    private let entries: UnsafeMutablePointer<Entry>
    private let capacity: Int
    /// How many entries are written (read by the writer only; a view keeps its own count).
    private(set) var count = 0
    /// The failure of the settled nodes (see ``BuildRecords/settledFailure``), kept by the
    /// writer (a view does not read it).
    var failure: FailureKind?

    private init(capacity: Int) {
        self.capacity = capacity
        entries = .allocate(capacity: capacity)
    }

    deinit {
        entries.deinitialize(count: count)
        entries.deallocate()
    }

    /// An empty log with room for `capacity` entries.
    static func withCapacity(_ capacity: Int) -> SettledLog { SettledLog(capacity: max(capacity, 8)) }

    /// Entry `index` (`index` below a count this log had when the reader was given it).
    subscript(index: Int) -> Entry {
        precondition(index >= 0 && index < capacity, "settled entry \(index) out of bounds")
        return entries[index]
    }

    /// Appends `record` of `slot`. Returns the log to keep appending to: this one, or a larger
    /// copy once this one is full (the reports made so far keep this one).
    func appending(_ record: BuildRecords.Record, of slot: Int) -> SettledLog {
        let log = count < capacity ? self : grown()
        (log.entries + log.count).initialize(to: Entry(slot: slot, record: record))
        log.count += 1
        return log
    }

    /// A copy of these entries with twice the room.
    private func grown() -> SettledLog {
        let log = SettledLog(capacity: capacity * 2)
        log.entries.initialize(from: entries, count: count)
        log.count = count
        log.failure = failure
        return log
    }
}

/// What a report of a build in flight reads: the nodes settled when it was made (see
/// ``SettledLog``), the details of those that failed or were skipped, and which slots had a
/// value when it was made.
struct SettledRecords: Sendable {
    let log: SettledLog
    /// The outcomes of failed and skipped nodes, by slot (shared with the build's, copied only
    /// when a node fails after the report was made).
    let details: [Int: NodeOutcome]
    /// The slots that had a value: a slot with neither a settled record nor a value is not in
    /// the report (a member not settled yet, or a service nobody needed).
    let valued: SlotSet
    /// How many entries of `log` this report has (32 bits: see the report's name count).
    private let entryCount: Int32

    init(log: SettledLog, count: Int, details: [Int: NodeOutcome], valued: SlotSet) {
        self.log = log
        self.details = details
        self.valued = valued
        entryCount = Int32(truncatingIfNeeded: count)
    }

    /// How many entries of the log this report has.
    var count: Int { Int(entryCount) }

    /// The settled records as a table of a graph of `nodeCount` nodes: each settled node has
    /// its record, every other slot none (a pending member is not in the report, a slot without
    /// a record reads as reused).
    func materialized(nodeCount: Int) -> RecordTable {
        var table = RecordTable(count: nodeCount, capacity: count)
        // A node settles once: each slot is in the log once.
        for index in 0..<count {
            let entry = log[index]
            table.records.append(entry.record)
            table.places.insert(table.records.count, at: entry.slot)
        }
        table.details = details
        return table
    }
}
