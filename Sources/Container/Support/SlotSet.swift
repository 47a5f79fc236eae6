/// A set of slots of one graph, as bits: a request's dependency closure, tested once per node
/// that ends while the request waits.
struct SlotSet: Sendable, Equatable {
    private var words: [UInt64]
    /// How many slots are in the set.
    private(set) var count = 0

    /// An empty set for a graph of `capacity` slots.
    init(capacity: Int) { words = [UInt64](repeating: 0, count: (capacity + 63) >> 6) }

    /// The set whose words are `words` (bit `i` of word `w`: slot `64 * w + i`).
    init(words: [UInt64]) {
        self.words = words
        count = words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    /// Every slot below `capacity`.
    static func all(_ capacity: Int) -> SlotSet {
        var set = SlotSet(capacity: capacity)
        for slot in 0..<capacity { set.insert(slot) }
        return set
    }

    func contains(_ slot: Int) -> Bool {
        let word = slot >> 6
        return word < words.count && words[word] & (1 << UInt64(slot & 63)) != 0
    }

    /// Adds `slot`; returns whether it was not there.
    @discardableResult
    mutating func insert(_ slot: Int) -> Bool {
        let bit: UInt64 = 1 << UInt64(slot & 63)
        guard words[slot >> 6] & bit == 0 else { return false }
        words[slot >> 6] |= bit
        count += 1
        return true
    }

    /// Takes `slot` out, if it is there.
    mutating func remove(_ slot: Int) {
        let bit: UInt64 = 1 << UInt64(slot & 63)
        guard words[slot >> 6] & bit != 0 else { return }
        words[slot >> 6] &= ~bit
        count -= 1
    }

    var isEmpty: Bool { count == 0 }

    /// The slots of this set or `other` (of a graph of the same size).
    func union(_ other: SlotSet) -> SlotSet {
        guard !other.isEmpty else { return self }
        guard !isEmpty else { return other }
        var result = self
        result.count = 0
        for index in result.words.indices {
            result.words[index] |= other.words[index]
            result.count += result.words[index].nonzeroBitCount
        }
        return result
    }

    /// Whether `predicate` holds for every slot (read in place: no array of the slots is made).
    func allSatisfy(_ predicate: (Int) throws -> Bool) rethrows -> Bool {
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                guard try predicate(index << 6 + bits.trailingZeroBitCount) else { return false }
                bits &= bits - 1
            }
        }
        return true
    }

    /// The slots, ascending.
    var slots: [Int] {
        var result: [Int] = []
        result.reserveCapacity(count)
        for (index, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                result.append(index << 6 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return result
    }
}
