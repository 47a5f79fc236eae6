/// Values by slot of one graph: an array indexed by slot (`nil` where a slot has none) and how
/// many there are.
///
/// The maps of values a build touches once per node (the values kept for the next attempt, the
/// values an attempt made) are arrays rather than dictionaries: a dictionary hashes every slot
/// of every build and allocates its table, an array is one write per slot.
struct SlotValues {
    /// The values, by slot; shorter than the graph when the last slots have none.
    private(set) var boxes: [AnyServiceBox?]
    /// How many slots have a value.
    private(set) var count: Int

    /// No values.
    init() {
        boxes = []
        count = 0
    }

    /// `boxes` by slot, of which `count` are not `nil` (the caller counted them as it filled them).
    init(_ boxes: [AnyServiceBox?], count: Int) {
        self.boxes = boxes
        self.count = count
    }

    /// The values of a dictionary by slot.
    init(_ dictionary: [Int: AnyServiceBox]) {
        self.init()
        for (slot, box) in dictionary { self[slot] = box }
    }

    /// The slots `boxes` covers (the slots from this one on have no value).
    var slotCount: Int { boxes.count }

    /// Whether `slot` has a value (without retaining it).
    func hasValue(_ slot: Int) -> Bool { slot < boxes.count && boxes[slot] != nil }

    /// Whether no slot has a value.
    var isEmpty: Bool { count == 0 }

    /// The value of `slot`, if it has one.
    subscript(slot: Int) -> AnyServiceBox? {
        get { slot < boxes.count ? boxes[slot] : nil }
        set {
            if slot >= boxes.count {
                guard newValue != nil else { return }
                boxes.append(contentsOf: repeatElement(nil, count: slot + 1 - boxes.count))
            }
            count += (newValue == nil ? 0 : 1) - (boxes[slot] == nil ? 0 : 1)
            boxes[slot] = newValue
        }
    }

    /// Removes and returns the value of `slot`, if it has one.
    mutating func removeValue(forKey slot: Int) -> AnyServiceBox? {
        defer { self[slot] = nil }
        return self[slot]
    }

    /// The slots that have a value, ascending.
    var keys: [Int] {
        var keys: [Int] = []
        keys.reserveCapacity(count)
        for slot in boxes.indices where boxes[slot] != nil { keys.append(slot) }
        return keys
    }

    /// The values, in slot order.
    var values: [AnyServiceBox] { boxes.compactMap { $0 } }

    /// Each slot with its value, in slot order.
    var slotsAndValues: [(slot: Int, box: AnyServiceBox)] {
        boxes.indices.compactMap { slot in boxes[slot].map { (slot, $0) } }
    }

    /// When `carried` (by slot: the slot whose value moves there, or -1) moves no value to
    /// another slot: removes and returns, in slot order, the values it does not carry, and
    /// keeps the others where they are, uncopied (a reload that changed a few services of a
    /// large graph). `nil`, and nothing changed, when some value would move.
    mutating func removeAllInPlace(except carried: [Int]) -> [AnyServiceBox]? {
        guard boxes.count <= carried.count,
            carried.indices.allSatisfy({ carried[$0] < 0 || carried[$0] == $0 })
        else { return nil }
        var removed: [AnyServiceBox] = []
        for slot in boxes.indices where carried[slot] < 0 && boxes[slot] != nil {
            if let box = removeValue(forKey: slot) { removed.append(box) }
        }
        return removed
    }

    /// Removes every value and returns them, in slot order.
    mutating func removeAll() -> [AnyServiceBox] {
        defer { self = SlotValues() }
        return values
    }
}
