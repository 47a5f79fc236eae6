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
    }

    /// The parked callers' waiters, ids and names, by arrival: parallel arrays, so a round of
    /// callers is handed back as its `waiters` array, without copying each caller out.
    private var waiters: [Waiter] = []
    private var ids: [Int] = []
    private var labels: [String] = []
    /// Positions of the callers that left (cancelled) this round: their waiters were answered.
    private var left: Set<Int> = []
    /// Position of each parked caller, made by the first cancellation of a round and kept up to
    /// date from then on: most rounds have no cancellation, and hashing every caller's id cost
    /// as much as the rest of parking it.
    private var positions: [Int: Int]?

    /// How many callers wait.
    var count: Int { waiters.count - left.count }

    /// Whether nobody waits.
    var isEmpty: Bool { count == 0 }

    /// Parks a caller until ``removeAll(named:)``.
    mutating func park(_ entry: Entry) {
        positions?[entry.id] = waiters.count
        // Names are kept only once a caller has one (untraced callers are unnamed): an array
        // less per round where nobody reads them.
        if !entry.label.isEmpty || !labels.isEmpty {
            labels.append(contentsOf: repeatElement("", count: waiters.count - labels.count))
            labels.append(entry.label)
        }
        waiters.append(entry.waiter)
        ids.append(entry.id)
    }

    /// Takes one caller out (its cancellation); `nil` when it is not parked (already answered).
    mutating func remove(_ id: Int) -> Entry? {
        guard !isEmpty else { return nil }
        if positions == nil {
            var index: [Int: Int] = [:]
            index.reserveCapacity(count)
            for (position, id) in ids.enumerated() where !left.contains(position) { index[id] = position }
            positions = index
        }
        guard let position = positions?.removeValue(forKey: id) else { return nil }
        left.insert(position)
        let label = position < labels.count ? labels[position] : ""
        let entry = Entry(id: id, label: label, waiter: waiters[position])
        if isEmpty { clear() }
        return entry
    }

    /// Takes every parked caller out: their waiters and, when `named` (for the trace), their
    /// names (otherwise none), in arrival order (the trace then reads the same way every time,
    /// and the runtime resumes tasks in the order it created them).
    mutating func removeAll(named: Bool) -> (waiters: [Waiter], labels: [String]) {
        defer { clear() }
        if !named {
            labels = []
        } else if labels.count < waiters.count {
            labels.append(contentsOf: repeatElement("", count: waiters.count - labels.count))
        }
        guard !left.isEmpty else { return (waiters, labels) }
        let stayed = waiters.indices.filter { !left.contains($0) }
        return (stayed.map { waiters[$0] }, named ? stayed.map { labels[$0] } : [])
    }

    private mutating func clear() {
        waiters = []
        ids = []
        labels = []
        left = []
        positions = nil
    }

    /// Broken invariants: the arrays, the callers that left and the positions must agree.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        if ids.count != waiters.count || labels.count > waiters.count {
            violations.append("one id and at most one name per parked caller")
        }
        if left.contains(where: { $0 >= waiters.count }) { violations.append("a caller left from beyond the end") }
        if let positions {
            if positions.count != count { violations.append("every parked caller has one position") }
            for (id, position) in positions where ids[position] != id || left.contains(position) {
                violations.append("caller \(id) is not where its position says")
            }
        }
        return violations
    }
}
