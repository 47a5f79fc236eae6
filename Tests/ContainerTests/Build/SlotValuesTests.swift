import ContainerTesting
import Testing

@testable import Container

/// Values by slot in shared chunks: the same answers as a dictionary, and copies share the
/// chunks they do not write (what makes a partial reset of a large graph cheap).
@Suite("Slot values in shared chunks")
struct SlotValuesTests {
    static func box(_ slot: Int) -> AnyServiceBox {
        ServiceBox(slot, name: "s\(slot)", builtIn: BuildAttempt(generation: 1, attempt: 1), tearDown: nil)
    }

    /// The address of the storage of chunk `index` (`nil`: no such chunk).
    static func chunkAddress(_ values: SlotValues, _ index: Int) -> UnsafeRawPointer? {
        guard index < values.chunkCount else { return nil }
        return values.chunk(index).withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// Checks every query of `values` against `model` (one expectation per query: an
    /// expectation per slot made the test minutes long under ThreadSanitizer).
    static func expectSame(_ values: SlotValues, _ model: [Int: AnyServiceBox], slots: Int) {
        let keys = model.keys.sorted()
        #expect(values.count == model.count && values.isEmpty == model.isEmpty)
        #expect(values.keys == keys)
        #expect(values.values.map(ObjectIdentifier.init) == keys.map { ObjectIdentifier(model[$0]!) })
        var visited: [Int] = []
        values.forEachSlot { visited.append($0) }
        #expect(visited == keys)
        var missing: [Int] = []
        values.forEachMissingSlot(below: slots) { missing.append($0) }
        #expect(missing == (0..<slots).filter { model[$0] == nil })
        let wrong = (0..<(slots + 70)).filter { slot in
            values[slot].map(ObjectIdentifier.init) != model[slot].map(ObjectIdentifier.init)
                || values.hasValue(slot) != (model[slot] != nil)
        }
        #expect(wrong.isEmpty, "slots read wrong: \(wrong)")
        // The presence bits, below a bound inside and beyond the values.
        for below in [0, slots / 2, slots, slots + 70] {
            let present = SlotSet(words: values.presence(below: below, capacity: slots + 70))
            let expected = (0..<below).filter { model[$0] != nil }
            #expect(present.count == expected.count && expected.allSatisfy(present.contains), "below \(below)")
        }
    }

    @Test("Random writes, removals, copies and merges agree with a dictionary (100 seeded rounds)")
    func agreesWithADictionary() {
        for seed in 0..<100 {
            var random = SplitMix64(seed: UInt64(seed))
            let slots = Int.random(in: 1...300, using: &random)
            var values = SlotValues()
            var model: [Int: AnyServiceBox] = [:]
            var copies: [(SlotValues, [Int: AnyServiceBox])] = []
            for _ in 0..<Int.random(in: 1...80, using: &random) {
                let slot = Int.random(in: 0..<slots, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0...5:
                    let box = Self.box(slot)
                    values[slot] = box
                    model[slot] = box
                case 6, 7:
                    let removed = values.removeValue(forKey: slot)
                    if removed.map(ObjectIdentifier.init) != model[slot].map(ObjectIdentifier.init) {
                        Issue.record("seed \(seed): removing slot \(slot) returned another value")
                    }
                    model[slot] = nil
                case 8:
                    copies.append((values, model))
                default:
                    var other = SlotValues()
                    var otherModel: [Int: AnyServiceBox] = [:]
                    for _ in 0..<Int.random(in: 0...5, using: &random) {
                        let written = Int.random(in: 0..<slots, using: &random)
                        other[written] = Self.box(written)
                        otherModel[written] = other[written]
                    }
                    values = values.merging(other)
                    model.merge(otherModel) { _, new in new }
                }
            }
            Self.expectSame(values, model, slots: slots)
            // Writing to `values` after a copy never changed the copy.
            for (copy, copyModel) in copies { Self.expectSame(copy, copyModel, slots: slots) }
        }
    }

    @Test("A copy shares every chunk it does not write; a write copies only its own chunk")
    func copiesShareUntouchedChunks() {
        var values = SlotValues()
        for slot in 0..<1_000 { values[slot] = Self.box(slot) }
        var copy = values
        _ = copy.removeValue(forKey: 700)
        let chunkCount = values.chunkCount
        #expect(chunkCount == (1_000 + 63) / 64)
        let written = 700 >> 6
        for index in 0..<chunkCount {
            let shared = Self.chunkAddress(values, index) == Self.chunkAddress(copy, index)
            #expect(shared == (index != written), "chunk \(index)")
        }
        #expect(values.count == 1_000 && copy.count == 999 && values[700] != nil && copy[700] == nil)
        // Merging a few values shares the other chunks as well.
        let merged = copy.merging(SlotValues([700: Self.box(700)]))
        #expect(merged.count == 1_000)
        #expect(
            (0..<chunkCount).count { Self.chunkAddress(merged, $0) == Self.chunkAddress(copy, $0) } == chunkCount - 1)
    }

    @Test("removeAllInPlace keeps carried values in place and refuses when a value would move")
    func removeAllInPlace() {
        var values = SlotValues()
        for slot in 0..<10 { values[slot] = Self.box(slot) }
        var moving = values
        // Slot 1 would receive slot 2's value: refused, nothing changed.
        #expect(moving.removeAllInPlace(except: [0, 2, -1, 3, 4, 5, 6, 7, 8, 9]) == nil)
        #expect(moving.count == 10)
        // A value beyond the new graph's slots would be lost: refused.
        #expect(moving.removeAllInPlace(except: [0, 1, 2]) == nil)
        let removed = moving.removeAllInPlace(except: [0, 1, -1, 3, 4, 5, 6, 7, 8, -1])
        #expect(removed?.map(\.name) == ["s2", "s9"])
        #expect(moving.keys == [0, 1, 3, 4, 5, 6, 7, 8])
        #expect(values.count == 10, "the original is unchanged")
    }

    @Test("A partial reset's snapshot shares all but the rebuilt chunk with the snapshot before")
    func partialResetSharesTheSnapshotsChunks() async throws {
        let specs = (0..<500).map { index in
            ServiceSpec(ServiceKey<Int>("s\(index)"), dependsOn: index == 0 ? [] : ["s0"]) { _ in index }
        }
        let container = ServiceContainer(graph: try ServiceGraph(specs))
        let before = try await container.start()
        try await container.reset(invalidating: ["s499"])
        let after = try await container.start()
        #expect(after.generation == before.generation + 1)
        let chunkCount = before.values.chunkCount
        let shared = (0..<chunkCount).count {
            Self.chunkAddress(before.values, $0) == Self.chunkAddress(after.values, $0)
        }
        #expect(shared == chunkCount - 1)
        #expect(
            try after[ServiceKey<Int>("s499")] == 499
                && after.report.nodes.count { if case .reused = $0.outcome { true } else { false } } == 499)
        try await container.shutdown()
    }
}
