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
        /// Closing (by its own `close()` or by this coordinator's operation `by`).
        case closing(by: Int?)
    }

    /// One child.
    struct Entry {
        let id: Int
        /// `push#notification-42`.
        let label: String
        let scope: String
        let child: Child
        var state: State = .open
        /// The values of this coordinator it leases.
        var lease: Set<ObjectIdentifier> = []
    }

    /// Open children by id; ids grow with the order they opened in.
    private var entries: [Int: Entry] = [:]
    private var idsByLabel: [String: Int] = [:]
    /// For each leased value, the children that lease it.
    private var holders: [ObjectIdentifier: Set<Int>] = [:]
    private var nextID = 1

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The children in the order they opened.
    var all: [Entry] { entries.values.sorted { $0.id < $1.id } }

    /// The labels of the children in the order they opened.
    var labels: [String] { all.map(\.label) }

    /// The child with `id`, if open.
    func entry(_ id: Int) -> Entry? { entries[id] }

    /// Whether a child labelled `label` is open (or closing).
    func contains(label: String) -> Bool { idsByLabel[label] != nil }

    /// Opens a child labelled `label` (not open yet) made by `make` with its id.
    mutating func open(label: String, scope: String, make: (_ id: Int) -> Child) -> (id: Int, child: Child) {
        precondition(idsByLabel[label] == nil, "child \(label) is open already")
        let id = nextID
        nextID += 1
        let child = make(id)
        entries[id] = Entry(id: id, label: label, scope: scope, child: child)
        idsByLabel[label] = id
        return (id, child)
    }

    /// Marks child `id` closing.
    mutating func markClosing(_ id: Int, by operation: Int?) {
        entries[id]?.state = .closing(by: operation)
    }

    /// Whether any child leases `box`.
    func isLeased(_ box: AnyServiceBox) -> Bool { holders[ObjectIdentifier(box)] != nil }

    /// Child `id` leases `boxes`.
    mutating func lease(_ boxes: [AnyServiceBox], to id: Int) {
        guard entries[id] != nil else { return }
        for box in boxes {
            let key = ObjectIdentifier(box)
            if entries[id]?.lease.insert(key).inserted == true { holders[key, default: []].insert(id) }
        }
    }

    /// Child `id` no longer uses `boxes`.
    mutating func release(_ boxes: [AnyServiceBox], by id: Int) {
        for box in boxes { release(ObjectIdentifier(box), by: id) }
    }

    private mutating func release(_ key: ObjectIdentifier, by id: Int) {
        guard entries[id]?.lease.remove(key) != nil else { return }
        holders[key]?.remove(id)
        if holders[key]?.isEmpty == true { holders[key] = nil }
    }

    /// The ids of the children that lease any of `boxes`, in the order they opened.
    func holders(of boxes: some Sequence<AnyServiceBox>) -> [Int] {
        var ids = Set<Int>()
        for box in boxes { ids.formUnion(holders[ObjectIdentifier(box)] ?? []) }
        return ids.sorted()
    }

    /// Removes child `id` (it ended), releasing whatever it still leased.
    mutating func remove(_ id: Int) {
        guard let entry = entries[id] else { return }
        for key in entry.lease { release(key, by: id) }
        entries[id] = nil
        idsByLabel[entry.label] = nil
    }

    /// Broken invariants: the holders agree with the leases.
    func invariantViolations() -> [String] {
        var violations: [String] = []
        for (key, ids) in holders {
            for id in ids where entries[id]?.lease.contains(key) != true {
                violations.append("a holder of a value that does not lease it")
            }
        }
        for entry in entries.values where idsByLabel[entry.label] != entry.id {
            violations.append("child \(entry.label) is not found by its label")
        }
        return violations
    }
}
