import ContainerTesting
import Testing

@testable import Container

/// Names kept as slots of a graph's names: listed slots, all names, or all but some.
@Suite("Slot names")
struct SlotNamesTests {
    @Test("Every way of listing names reads the names it means, and lists are equal by their names")
    func listings() {
        let all = ["a", "b", "c", "d", "e"]
        #expect(SlotNames([3, 0], of: all).names == ["d", "a"])
        #expect(SlotNames(all).names == all)
        #expect(SlotNames(allBut: [], of: all).names == all)
        #expect(SlotNames(allBut: [0, 2, 4], of: all).names == ["b", "d"])
        #expect(SlotNames(allBut: [0, 1, 2, 3, 4], of: all).names == [])
        #expect(SlotNames(allBut: [1, 3], of: all) == SlotNames([0, 2, 4], of: all))
        #expect(SlotNames(allBut: [1], of: all) != SlotNames(allBut: [2], of: all))
    }

    @Test("All but a random set of slots is the complement, in order (100 seeded cases)")
    func complement() {
        for seed in 0..<100 {
            var random = SplitMix64(seed: UInt64(seed))
            let all = (0..<Int.random(in: 0...200, using: &random)).map { "s\($0)" }
            let excluded = all.indices.filter { _ in Bool.random(using: &random) }
            let excludedSet = Set(excluded)
            let kept = all.indices.filter { !excludedSet.contains($0) }.map { all[$0] }
            #expect(SlotNames(allBut: excluded, of: all).names == kept, "seed \(seed)")
        }
    }
}
