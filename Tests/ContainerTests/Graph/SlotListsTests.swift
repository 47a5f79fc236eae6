import ContainerTesting
import Testing

@testable import Container

@Suite("SlotLists: every slot's list in one array, and its inverse")
struct SlotListsTests {
    /// Random lists over `count` slots, each entry a smaller slot (the shape of dependencies).
    static func randomLists(count: Int, seed: UInt64) -> [[Int]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { slot in
            slot == 0
                ? [] : (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: 0..<slot, using: &random) }
        }
    }

    @Test("Each slot reads back its list; the inverse lists, for each slot, the slots whose lists hold it, in order")
    func listsAndInverse() {
        for (count, seed) in [(0, 1), (1, 2), (2, 3), (50, 4), (1_000, 5)] as [(Int, UInt64)] {
            let lists = Self.randomLists(count: count, seed: seed)
            let table = SlotLists(count: count, entries: lists.reduce(0) { $0 + $1.count }) { lists[$0] }
            #expect(table.count == count)
            #expect((0..<count).allSatisfy { Array(table[$0]) == lists[$0] }, "count \(count)")
            var expected = [[Int]](repeating: [], count: count)
            for (slot, list) in lists.enumerated() {
                for entry in list { expected[entry].append(slot) }
            }
            let inverse = SlotLists(inverting: table)
            #expect(inverse.count == count)
            #expect((0..<count).allSatisfy { Array(inverse[$0]) == expected[$0] }, "count \(count)")
        }
    }

    @Test("A graph's dependents are the inverse of its dependencies")
    func graphDependents() throws {
        let graph = try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
            ServiceSpec(ServiceKey<Int>("c"), dependsOn: ["a", "b"]) { _ in 3 },
        ])
        #expect(graph.dependents(of: "a") == ["b", "c"])
        #expect(graph.dependents(of: "b") == ["c"])
        #expect(graph.dependents(of: "c") == [])
        #expect(graph.dependencies(of: "c") == ["a", "b"])
    }
}
