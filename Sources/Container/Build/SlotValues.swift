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
    var keys: [Int] { boxes.indices.filter { boxes[$0] != nil } }

    /// The values, in slot order.
    var values: [AnyServiceBox] { boxes.compactMap { $0 } }

    /// Each slot with its value, in slot order.
    var slotsAndValues: [(slot: Int, box: AnyServiceBox)] {
        boxes.indices.compactMap { slot in boxes[slot].map { (slot, $0) } }
    }

    /// Removes every value and returns them, in slot order.
    mutating func removeAll() -> [AnyServiceBox] {
        defer { self = SlotValues() }
        return values
    }
}
