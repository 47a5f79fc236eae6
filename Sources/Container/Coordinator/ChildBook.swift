/// The scope instances open on a coordinator (its **children**), and the values of this
/// coordinator each one uses (its **lease**).
///
/// A child leases the values it is built on before it uses them. A value is torn down only
/// once no child leases it (``isLeased(_:)``), and the operation that retires a leased value
/// supersedes every child that holds it, in the same transition: the child's build is
/// cancelled and its values torn down, after which it releases the lease. So a scoped value is
/// always torn down before the values it was built on, and never runs on a torn-down one.
/// A plain value, generic over the child handle so tests drive it with integers.
struct ChildBook<Child> {
    /// How an open child stands.
    enum State: Equatable {
        case open
        /// Closing: by an operation of this coordinator's (a reload removing its scope, a
        /// shutdown), or on its own (`close()`, which tells its parent when it begins).
        case closing
    }

    /// One child.
    struct Entry {
        let id: Int
        /// `push#notification-42`.
        let label: String
        let scope: String
        let child: Child
        var state: State = .open
        /// The values of this coordinator it leases, once per lease (a few: a scope's app services).
        var lease: [ObjectIdentifier] = []
    }

    /// Open children by id; ids grow with the order they opened in.
    private var entries: [Int: Entry] = [:]
    private var idsByLabel: [String: Int] = [:]
    /// For each leased value, how many leases of children hold it.
    private var leaseCounts: [ObjectIdentifier: Int] = [:]
    private var nextID = 1

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The children in the order they opened.
    var all: [Entry] { entries.values.sorted { $0.id < $1.id } }

    /// The labels of the children (closing ones too) in the order they opened.
    var labels: [String] { all.map(\.label) }

    /// The labels of the open (not closing) children in the order they opened.
    var openLabels: [String] { all.filter { $0.state == .open }.map(\.label) }

    /// The child with `id`, if open.
    func entry(_ id: Int) -> Entry? { entries[id] }

    /// Whether child `id` is open (not closing).
    func isOpen(_ id: Int) -> Bool {
        guard let index = entries.index(forKey: id) else { return false }
        return entries.values[index].state == .open
    }

    /// Whether a child labelled `label` is open (or closing).
    func contains(label: String) -> Bool { idsByLabel[label] != nil }

    /// Whether the child labelled `label` is closing.
    func isClosing(label: String) -> Bool { idsByLabel[label].flatMap { entries[$0] }?.state == .closing }

    /// Opens a child labelled `label` made by `make` with its id; `nil` (and nothing made) when a
    /// child with that label is open (or closing). One lookup of the label.
    mutating func open(label: String, scope: String, make: (_ id: Int) -> Child) -> (id: Int, child: Child)? {
        let id = nextID
        if let holder = idsByLabel.updateValue(id, forKey: label) {
            // Taken: the holder keeps its label.
            idsByLabel[label] = holder
            return nil
        }
        nextID += 1
        let child = make(id)
        entries[id] = Entry(id: id, label: label, scope: scope, child: child)
        return (id, child)
    }

    /// Marks child `id` closing.
    mutating func markClosing(_ id: Int) {
        entries[id]?.state = .closing
    }

    /// Whether any child leases `box`.
    func isLeased(_ box: AnyServiceBox) -> Bool { !leaseCounts.isEmpty && leaseCounts[ObjectIdentifier(box)] != nil }

    /// Child `id` leases `boxes`.
    mutating func lease(_ boxes: [AnyServiceBox], to id: Int) {
        // By index: the entry is read and changed in place, never copied out.
        guard let index = entries.index(forKey: id) else { return }
        // Counted: each request's lease of a value is handed back once (a second request of
        // the same child leasing it again must not lose the first one's).
        for box in boxes {
            let key = ObjectIdentifier(box)
            entries.values[index].lease.append(key)
            leaseCounts[key, default: 0] += 1
        }
    }

    /// Child `id` no longer uses `boxes`.
    mutating func release(_ boxes: [AnyServiceBox], by id: Int) {
        for box in boxes { release(ObjectIdentifier(box), by: id) }
    }

    private mutating func release(_ key: ObjectIdentifier, by id: Int) {
        guard let position = entries[id]?.lease.firstIndex(of: key) else { return }
        entries[id]?.lease.remove(at: position)
        let left = (leaseCounts[key] ?? 1) - 1
        leaseCounts[key] = left > 0 ? left : nil
    }

    /// The ids of the children that lease any of `boxes`, in the order they opened (a scan of
    /// every child's lease: an operation that retires values is rare, a lease is not).
    func holders(of boxes: some Sequence<AnyServiceBox>) -> [Int] {
        guard !leaseCounts.isEmpty else { return [] }
        let retired = Set(boxes.lazy.map(ObjectIdentifier.init).filter { leaseCounts[$0] != nil })
        guard !retired.isEmpty else { return [] }
        return entries.values.filter { $0.lease.contains(where: retired.contains) }.map(\.id).sorted()
    }

    /// Removes child `id` (it ended), releasing whatever it still leased.
    mutating func remove(_ id: Int) {
        guard let entry = entries[id] else { return }
        for key in entry.lease { release(key, by: id) }
        entries[id] = nil
        idsByLabel[entry.label] = nil
    }

    /// Broken invariants: the counts agree with the leases.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        var counts: [ObjectIdentifier: Int] = [:]
        for entry in entries.values { for key in entry.lease { counts[key, default: 0] += 1 } }
        if counts != leaseCounts { violations.append("the lease counts disagree with the leases") }
        for entry in entries.values where idsByLabel[entry.label] != entry.id {
            violations.append("child \(entry.label) is not found by its label")
        }
        return violations
    }
}
