/// Who waits for the running attempt: the parked callers, in the order they arrived.
///
/// A plain value (no locks), generic over the waiter so tests drive it with integers. Callers
/// get their ids before they suspend (from the storage), so a cancellation can name its caller
/// whether it comes before or after the caller parked: before, the caller sees its task
/// cancelled when it registers and never parks; after, ``remove(_:)`` finds it here.
struct CallerRegistry<Waiter> {
    /// A parked caller.
    struct Entry {
        let id: Int
        /// The caller's name in the trace.
        let label: String
        let waiter: Waiter
        /// The caller's task priority (`TaskPriority.rawValue`).
        let priority: UInt8
    }

    /// Parked callers by arrival; `nil` where a caller left (cancelled).
    private var entries: [Entry?] = []
    /// How many callers are parked (the non-`nil` entries).
    private(set) var count = 0
    /// Position in `entries` of each parked caller, made by the first cancellation of a round and
    /// kept up to date from then on: most rounds have no cancellation, and hashing every caller's
    /// id cost as much as the rest of parking it.
    private var positions: [Int: Int]?

    /// Whether nobody waits.
    var isEmpty: Bool { count == 0 }

    /// The highest priority among the waiting callers (0 when nobody waits).
    var highestPriority: UInt8 { entries.reduce(0) { max($0, $1?.priority ?? 0) } }

    /// Parks a caller until ``removeAll()``.
    mutating func park(_ entry: Entry) {
        positions?[entry.id] = entries.count
        entries.append(entry)
        count += 1
    }

    /// Takes one caller out (its cancellation); `nil` when it is not parked (already answered).
    mutating func remove(_ id: Int) -> Entry? {
        guard count > 0 else { return nil }
        if positions == nil {
            var index: [Int: Int] = [:]
            index.reserveCapacity(count)
            for (position, entry) in entries.enumerated() { if let entry { index[entry.id] = position } }
            positions = index
        }
        guard let position = positions?.removeValue(forKey: id) else { return nil }
        let entry = entries[position]
        entries[position] = nil
        count -= 1
        if count == 0 {
            entries = []
            positions = nil
        }
        return entry
    }

    /// Takes every parked caller out, in arrival order (the trace then reads the same way every
    /// time, and the runtime resumes tasks in the order it created them).
    mutating func removeAll() -> [Entry] {
        defer {
            entries = []
            positions = nil
            count = 0
        }
        return entries.compactMap { $0 }
    }

    /// Broken invariants: positions and entries must agree.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        if count != entries.count(where: { $0 != nil }) { violations.append("the count is the parked callers'") }
        if let positions {
            if positions.count != count { violations.append("every parked caller has one position") }
            for (id, position) in positions where entries[position]?.id != id {
                violations.append("caller \(id) is not where its position says")
            }
        }
        return violations
    }
}
