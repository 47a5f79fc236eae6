/// A list of service names kept as slots of a graph's array of names, made into strings only
/// when read.
///
/// Reports list the services a reset or reload carried over: in a large graph that changed
/// one service, nearly every name. Copying each name (a retain each, and a release when the
/// report goes) made the report cost as much as the graph is large; plain slot numbers and the
/// graph's shared array cost a copy of integers. Equal and hashed by the names it lists.
struct SlotNames: Sendable, Hashable {
    /// The graph's names (shared, not copied).
    private let all: [String]
    /// The slots listed, in list order; `nil`: every name of `all`, in order.
    private let slots: [Int]?
    /// With `slots` `nil`: the slots left out, ascending.
    private let excluded: [Int]

    /// The names of `slots` (in that order) among `all`.
    init(_ slots: [Int], of all: [String]) {
        self.all = all
        self.slots = slots
        excluded = []
    }

    /// Every name of `all` but those of `excluded` (ascending slots), in order: a list of
    /// nearly every service costs no array of slots until it is read.
    init(allBut excluded: [Int], of all: [String]) {
        self.all = all
        slots = nil
        self.excluded = excluded
    }

    /// These names.
    init(_ names: [String]) {
        all = names
        slots = nil
        excluded = []
    }

    /// The names listed.
    var names: [String] {
        if let slots { return slots.map { all[$0] } }
        guard !excluded.isEmpty else { return all }
        var names: [String] = []
        names.reserveCapacity(all.count - excluded.count)
        var next = 0
        for (slot, name) in all.enumerated() {
            if next < excluded.count && excluded[next] == slot {
                next += 1
            } else {
                names.append(name)
            }
        }
        return names
    }

    static func == (lhs: SlotNames, rhs: SlotNames) -> Bool { lhs.names == rhs.names }

    func hash(into hasher: inout Hasher) { hasher.combine(names) }
}
