import ContainerTesting
import Testing

@testable import Container

/// A set of slots as bits, as a value, against `Set<Int>` (STYLE rule 12).
@Suite("Slot set as a value")
struct SlotSetTests {
    /// The slots next to word boundaries of a 130-slot set.
    static let edges = [0, 1, 62, 63, 64, 65, 126, 127, 128, 129]

    static func set(_ slots: [Int], capacity: Int) -> SlotSet {
        var set = SlotSet(capacity: capacity)
        for slot in slots { set.insert(slot) }
        return set
    }

    /// `set` agrees with `model`: its count, its slots (ascending) and `contains` for every slot below
    /// `capacity` and a few beyond it.
    static func expect(
        _ set: SlotSet, equals model: Set<Int>, capacity: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(set.count == model.count && set.isEmpty == model.isEmpty, sourceLocation: sourceLocation)
        #expect(set.slots == model.sorted(), sourceLocation: sourceLocation)
        let wrong = (0..<(capacity + 70)).filter { set.contains($0) != model.contains($0) }
        #expect(wrong.isEmpty, "contains disagrees at \(wrong)", sourceLocation: sourceLocation)
    }

    @Test("An empty set contains nothing, below its capacity or beyond it")
    func empty() {
        for capacity in [0, 1, 64, 130] {
            let set = SlotSet(capacity: capacity)
            Self.expect(set, equals: [], capacity: capacity)
            #expect(!set.contains(10_000), "far beyond the last word")
        }
        #expect(SlotSet(capacity: 0) == SlotSet.all(0))
    }

    @Test("insert adds each slot once, at both ends of every word")
    func insertAcrossWords() {
        var set = SlotSet(capacity: 130)
        for slot in [0, 63, 64, 127, 128, 129] {
            let inserted = set.insert(slot)
            #expect(inserted, "slot \(slot) was not there")
            #expect(set.contains(slot))
        }
        for slot in [0, 63, 64, 127, 128, 129] {
            let inserted = set.insert(slot)
            #expect(!inserted, "slot \(slot) is there already")
        }
        Self.expect(set, equals: [0, 63, 64, 127, 128, 129], capacity: 130)
        for neighbour in [1, 62, 65, 126] { #expect(!set.contains(neighbour)) }
        #expect(
            Self.set([129, 64, 0], capacity: 130) == Self.set([0, 64, 129], capacity: 130), "order does not matter")
        #expect(Self.set([0], capacity: 130) != Self.set([64], capacity: 130), "the same bit of another word")
    }

    @Test("allSatisfy visits the slots in ascending order and stops at the first that fails")
    func allSatisfy() {
        let set = Self.set(Self.edges, capacity: 130)
        var visited: [Int] = []
        let every = set.allSatisfy { slot in
            visited.append(slot)
            return true
        }
        #expect(every)
        #expect(visited == Self.edges)
        visited = []
        let stopped = set.allSatisfy { slot in
            visited.append(slot)
            return slot != 64
        }
        #expect(!stopped)
        #expect(visited == [0, 1, 62, 63, 64], "stops at 64")
        #expect(SlotSet(capacity: 130).allSatisfy { _ in false }, "an empty set satisfies anything")
    }

    @Test("all(n) holds exactly the slots below n")
    func all() {
        for capacity in [0, 1, 63, 64, 65, 127, 128, 129, 200] {
            let set = SlotSet.all(capacity)
            Self.expect(set, equals: Set(0..<capacity), capacity: capacity)
            #expect(set == Self.set(Array(0..<capacity), capacity: capacity))
        }
    }

    @Test("union holds the slots of either set, counted once, across words")
    func union() {
        let capacity = 200
        let left = Self.set([0, 63, 64, 150], capacity: capacity)
        let right = Self.set([63, 64, 127, 128, 199], capacity: capacity)
        let both = left.union(right)
        Self.expect(both, equals: [0, 63, 64, 127, 128, 150, 199], capacity: capacity)
        #expect(both == right.union(left))
        #expect(left.union(left) == left && left.union(left).count == 4, "a set with itself: nothing new")
        let empty = SlotSet(capacity: capacity)
        #expect(left.union(empty) == left && empty.union(left) == left)
        #expect(empty.union(empty).isEmpty)
        Self.expect(left, equals: [0, 63, 64, 150], capacity: capacity)  // union leaves its operands alone
        var grown = both
        let inserted = grown.insert(1)
        #expect(inserted && grown.count == 8 && both.count == 7, "a copy grows on its own")
    }

    @Test("Random inserts and unions agree with Set<Int>")
    func randomSequences() async throws {
        let steps = ThreadSanitizerHooks.acquire != nil ? 150 : 600
        for seed in UInt64(1)...10 {
            var driver = SlotSetDriver(seed: seed)
            guard try await drive(&driver, steps: steps, seed: seed) else { return }
            #expect(driver.unions > steps / 10, "seed \(seed) exercised little")
        }
    }
}

/// Drives a ``SlotSet`` with random inserts (near word boundaries more often than not) and
/// unions, against a `Set<Int>`.
struct SlotSetDriver: SeededDriver {
    var random: SplitMix64
    let capacity: Int
    var set: SlotSet
    var model = Set<Int>()
    var unions = 0
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
        capacity = [1, 63, 64, 65, 127, 128, 129, 200, 300].randomElement(using: &random)!
        set = SlotSet(capacity: capacity)
    }

    /// A slot below the capacity, half the time next to a word boundary.
    mutating func slot() -> Int {
        guard Bool.random(using: &random) else { return Int.random(in: 0..<capacity, using: &random) }
        let boundary = 64 * Int.random(in: 0...(capacity / 64), using: &random)
        return min(max(boundary + Int.random(in: -1...0, using: &random), 0), capacity - 1)
    }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<60:
            let slot = slot()
            history.append("insert \(slot)")
            let inserted = set.insert(slot)
            if inserted != model.insert(slot).inserted { violations.append("insert \(slot) gave \(inserted)") }
        case 60..<90:
            var other = SlotSet(capacity: capacity)
            var otherModel = Set<Int>()
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let slot = slot()
                other.insert(slot)
                otherModel.insert(slot)
            }
            history.append("union \(otherModel.sorted())")
            let union = set.union(other)
            let expected = model.union(otherModel)
            if union.count != expected.count || !union.slots.allSatisfy(expected.contains) {
                violations.append("union \(union.slots), model \(expected.sorted())")
            }
            // Half the time the union replaces the set, half the time the other way round.
            set = Bool.random(using: &random) ? union : other.union(set)
            model.formUnion(otherModel)
            unions += 1
        case 90..<95:
            history.append("all")
            set = set.union(.all(capacity))
            model = Set(0..<capacity)
        default:
            history.append("clear")
            set = SlotSet(capacity: capacity)
            model = []
        }
        check()
    }

    /// Checks every slot (and the ones just beyond the capacity).
    mutating func finish() { check(full: true) }

    /// The count and the slots after every step; `contains` of every slot every 16 steps (and
    /// at the end), of a few near word boundaries otherwise.
    mutating func check(full: Bool = false) {
        if set.count != model.count || set.isEmpty != model.isEmpty {
            violations.append("count \(set.count), model \(model.count)")
        }
        // Ascending, and the model's (a sort of the model every step would cost more than the rest).
        let slots = set.slots
        if slots.count != model.count || !slots.allSatisfy(model.contains)
            || zip(slots, slots.dropFirst()).contains(where: { $0 >= $1 })
        {
            violations.append("slots \(slots), model \(model.sorted())")
        }
        let probed = full || history.count % 16 == 0 ? Array(0..<(capacity + 64)) : (0..<4).map { _ in slot() }
        let wrong = probed.filter { set.contains($0) != model.contains($0) }
        if !wrong.isEmpty { violations.append("contains disagrees at \(wrong)") }
        guard full || history.count % 16 == 0 else { return }
        var rebuilt = SlotSet(capacity: capacity)
        for slot in model { rebuilt.insert(slot) }
        if rebuilt != set { violations.append("not equal to the same slots inserted one by one") }
    }
}
