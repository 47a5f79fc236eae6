import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// The values of a generation that outlive one attempt, as a value (STYLE rule 12).
@Suite("Generation values as a value")
struct GenerationValuesTests {
    /// A graph of `services` (name, dependencies), in declaration order.
    static func graph(_ services: [(String, [String])]) throws -> ServiceGraph {
        try ServiceGraph(
            services.enumerated().map { index, service in
                ServiceSpec(ServiceKey<Int>(service.0), dependsOn: service.1) { _ in index }
            })
    }

    /// a <- b <- c, and d on its own.
    static func chain() throws -> ServiceGraph {
        try graph([("a", []), ("b", ["a"]), ("c", ["b"]), ("d", [])])
    }

    static func box(_ name: String, generation: Int = 1, attempt: Int = 1) -> AnyServiceBox {
        ServiceBox(0, name: name, builtIn: BuildAttempt(generation: generation, attempt: attempt), tearDown: nil)
    }

    /// The report of an attempt over `names`, each node run `runs[slot]` times; failed unless `succeeded`.
    static func report(_ names: [String], runs: [Int], succeeded: Bool) -> BuildReport {
        let nodes: [BuildReport.NodeReport] = zip(names, runs).enumerated().map { slot, node in
            let outcome: NodeOutcome =
                succeeded || slot > 0
                ? .succeeded(duration: .zero)
                : .failed(NodeFailure(kind: .transient, message: "x", error: TestError()))
            return .init(name: node.0, outcome: outcome, runs: node.1, startedAt: nil, endedAt: nil)
        }
        return BuildReport(
            generation: 1, attempt: 1, nodes: nodes, startedAt: .zero, endedAt: .zero, wasCancelled: false)
    }

    /// The values in `values`' slots, by identity.
    static func identities(_ values: GenerationValues) -> [Int: ObjectIdentifier] {
        Dictionary(uniqueKeysWithValues: values.kept.slotsAndValues.map { ($0.slot, ObjectIdentifier($0.box)) })
    }

    static func ids(_ boxes: some Sequence<AnyServiceBox>) -> Set<ObjectIdentifier> {
        Set(boxes.map(ObjectIdentifier.init))
    }

    static func expectValid(_ values: GenerationValues, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            values.invariantViolations().isEmpty, "\(values.invariantViolations())", sourceLocation: sourceLocation)
    }

    /// Four values of generation 1, one per service of ``chain()``, kept after a successful attempt.
    static func fullyBuilt() throws -> (GenerationValues, [AnyServiceBox]) {
        let graph = try chain()
        var values = GenerationValues(graph: graph)
        let boxes = graph.serviceNames.map { box($0) }
        values.keep(
            SlotValues(Dictionary(uniqueKeysWithValues: boxes.enumerated().map { ($0, $1) })),
            report: report(graph.serviceNames, runs: [1, 1, 1, 1], succeeded: true))
        return (values, boxes)
    }

    @Test("keep takes the first attempt's values, merges later ones, and counts runs of failed attempts only")
    func keep() throws {
        let graph = try Self.chain()
        var values = GenerationValues(graph: graph)
        #expect(values.generation == 1 && values.kept.isEmpty && values.runs.isEmpty)
        let a = Self.box("a")
        values.keep(SlotValues([0: a]), report: Self.report(graph.serviceNames, runs: [1, 1, 0, 2], succeeded: false))
        #expect(values.kept[0] === a && values.kept.count == 1)
        #expect(values.runs == [1, 1, 0, 2])
        Self.expectValid(values)

        let b = Self.box("b", attempt: 2)
        let d = Self.box("d", attempt: 2)
        values.keep(
            SlotValues([0: a, 1: b, 3: d]),
            report: Self.report(graph.serviceNames, runs: [0, 2, 1, 0], succeeded: false))
        #expect(values.kept[0] === a && values.kept[1] === b && values.kept[2] == nil && values.kept[3] === d)
        #expect(values.kept.count == 3)
        #expect(values.runs == [1, 3, 1, 2], "runs add up over the generation's attempts")

        let c = Self.box("c", attempt: 3)
        values.keep(SlotValues([2: c]), report: Self.report(graph.serviceNames, runs: [5, 5, 5, 5], succeeded: true))
        #expect(values.kept.count == 4 && values.kept[2] === c && values.kept[1] === b, "a merge keeps the rest")
        #expect(values.runs == [1, 3, 1, 2], "a successful attempt's runs are not counted")
        Self.expectValid(values)

        let (ready, _) = try Self.fullyBuilt()
        #expect(ready.runs.isEmpty, "a generation that built at once has no runs")
    }

    @Test("A partial reset retires the invalidated slots and their dependents; the rest carries over")
    func partialReset() throws {
        var (values, boxes) = try Self.fullyBuilt()
        values.keep(SlotValues(), report: Self.report(values.builtNames, runs: [1, 1, 1, 1], succeeded: false))
        let retired = values.advance(invalidating: [1])
        #expect(retired.slots == [1, 2], "b and its dependent c")
        #expect(Self.ids(retired.values) == Self.ids([boxes[1], boxes[2]]))
        #expect(Self.identities(values) == [0: ObjectIdentifier(boxes[0]), 3: ObjectIdentifier(boxes[3])])
        #expect(values.generation == 2 && values.runs.isEmpty)
        Self.expectValid(values)

        // A slot without a value is still retired (rebuilt), but returns nothing to tear down.
        let again = values.advance(invalidating: [2])
        #expect(again.slots == [2] && again.values.isEmpty)
        #expect(values.generation == 3 && values.kept.count == 2)
        Self.expectValid(values)
    }

    @Test("The missing slots are known after a build, a partial reset and an in-place reload, while few")
    func missingSlots() throws {
        let graph = try Self.chain()
        var values = GenerationValues(graph: graph)
        #expect(values.missingSlots == nil, "nothing built yet: every slot, not listed")
        values.keep(
            SlotValues([0: Self.box("a")]),
            report: Self.report(graph.serviceNames, runs: [1, 1, 1, 1], succeeded: false))
        #expect(values.missingSlots == nil, "still not listed after a failed first attempt")

        var (ready, _) = try Self.fullyBuilt()
        #expect(ready.missingSlots == [])
        _ = ready.advance(invalidating: [1])
        #expect(ready.missingSlots == [1, 2], "b and its dependent c")
        // A failed attempt that made b: only c is left.
        ready.keep(
            SlotValues([1: Self.box("b", generation: 2)]),
            report: Self.report(ready.builtNames, runs: [0, 1, 1, 0], succeeded: false))
        #expect(ready.missingSlots == [2])
        _ = ready.advance(invalidating: [3])
        #expect(ready.missingSlots == [2, 3])
        ready.keep(
            SlotValues([2: Self.box("c", generation: 3), 3: Self.box("d", generation: 3)]),
            report: Self.report(ready.builtNames, runs: [0, 0, 1, 1], succeeded: true))
        #expect(ready.missingSlots == [])

        // A reload in place adds its rebuilt slots; one that moves services forgets the list.
        let plan = ReloadPlan(inPlace: [3], carried: SlotNames(allBut: [3], of: ready.graph.serviceNames))
        _ = ready.advance(to: try Self.chain(), plan: plan)
        #expect(ready.missingSlots == [3])
        _ = ready.advance(to: try Self.chain(), carrying: [0, 1, 2, -1])
        #expect(ready.missingSlots == nil)

        // A full reset, and a partial one of more than `fewMissing` slots, are not listed.
        var (full, _) = try Self.fullyBuilt()
        _ = full.advance(invalidating: nil)
        #expect(full.missingSlots == nil)
        let long = try Self.graph((0...GenerationValues.fewMissing).map { ("s\($0)", $0 == 0 ? [] : ["s\($0 - 1)"]) })
        var chain = GenerationValues(graph: long)
        chain.keep(
            SlotValues(Dictionary(uniqueKeysWithValues: long.serviceNames.enumerated().map { ($0, Self.box($1)) })),
            report: Self.report(long.serviceNames, runs: long.serviceNames.map { _ in 1 }, succeeded: true))
        _ = chain.advance(invalidating: [1])
        #expect(chain.missingSlots?.count == GenerationValues.fewMissing, "64 slots: listed")
        _ = chain.advance(invalidating: [0])
        #expect(chain.missingSlots == nil, "65 slots: not listed")
    }

    @Test("A full reset retires every slot and value, in slot order")
    func fullReset() throws {
        var (values, boxes) = try Self.fullyBuilt()
        let retired = values.advance(invalidating: nil)
        #expect(retired.slots == [0, 1, 2, 3])
        #expect(retired.values.map(ObjectIdentifier.init) == boxes.map(ObjectIdentifier.init))
        #expect(values.kept.isEmpty && values.generation == 2)
        #expect(values.advance(invalidating: nil).values.isEmpty, "nothing is retired twice")
        Self.expectValid(values)
    }

    @Test("A permanent failure retires only the values built in this generation")
    func retireBuiltInThisGeneration() throws {
        var (values, boxes) = try Self.fullyBuilt()
        _ = values.advance(invalidating: [1])
        let b2 = Self.box("b", generation: 2)
        values.keep(SlotValues([1: b2]), report: Self.report(values.builtNames, runs: [0, 1, 1, 0], succeeded: false))
        Self.expectValid(values)
        let retired = values.retireBuiltInThisGeneration()
        #expect(retired.count == 1 && retired.first === b2)
        #expect(Self.identities(values) == [0: ObjectIdentifier(boxes[0]), 3: ObjectIdentifier(boxes[3])])
        #expect(values.retireBuiltInThisGeneration().isEmpty, "nothing is retired twice")
        #expect(values.generation == 2, "the generation stays")
    }

    @Test("A reload moves carried values to their new slots and retires every other value")
    func reload() throws {
        var (values, boxes) = try Self.fullyBuilt()
        let newGraph = try Self.graph([("d", []), ("a", []), ("e", ["a"]), ("c", [])])
        // d and a carry over (from old slots 3 and 0), e is new, c is rebuilt; b is gone.
        let retired = values.advance(to: newGraph, carrying: [3, 0, -1, -1])
        #expect(retired.map(ObjectIdentifier.init) == [boxes[1], boxes[2]].map(ObjectIdentifier.init))
        #expect(Self.identities(values) == [0: ObjectIdentifier(boxes[3]), 1: ObjectIdentifier(boxes[0])])
        #expect(values.kept.count == 2 && values.graph === newGraph && values.generation == 2)
        #expect(values.builtNames == ["d", "a", "e", "c"])
        Self.expectValid(values)

        // Carrying a slot that has no value moves nothing and retires nothing.
        let same = try Self.graph([("d", []), ("a", []), ("e", ["a"]), ("c", [])])
        let none = values.advance(to: same, carrying: [0, 1, 2, 3])
        #expect(none.isEmpty && values.kept.count == 2 && values.generation == 3)
        Self.expectValid(values)
    }

    @Test("retireAll ends every value in slot order and keeps the generation")
    func retireAll() throws {
        var (values, boxes) = try Self.fullyBuilt()
        #expect(values.retireAll().map(ObjectIdentifier.init) == boxes.map(ObjectIdentifier.init))
        #expect(values.kept.isEmpty && values.generation == 1)
        #expect(values.retireAll().isEmpty)
    }

    @Test("Names of slots come back in slot order")
    func names() throws {
        let values = GenerationValues(graph: try Self.chain())
        #expect(values.builtNames == ["a", "b", "c", "d"])
        #expect(values.names(of: Set([3, 0, 2])) == ["a", "c", "d"])
        #expect(values.names(ofAscending: [1, 3]) == ["b", "d"])
    }

    @Test("A value in another service's slot, or from a later generation, breaks the invariants")
    func invariants() throws {
        var values = GenerationValues(graph: try Self.chain())
        values.keep(SlotValues([0: Self.box("b")]), report: Self.report(["a"], runs: [1], succeeded: true))
        #expect(values.invariantViolations().count == 1)

        var future = GenerationValues(graph: try Self.chain())
        future.keep(
            SlotValues([0: Self.box("a", generation: 2)]), report: Self.report(["a"], runs: [1], succeeded: true))
        #expect(future.invariantViolations().count == 1)
        _ = future.advance(invalidating: [3])
        #expect(future.invariantViolations().isEmpty, "generation 2 now")
    }

    @Test("Random attempts, resets, reloads and failures: every value kept is retired exactly once")
    func randomSequences() async throws {
        for seed in UInt64(1)...10 {
            var driver = try GenerationValuesDriver(seed: seed)
            guard try await drive(&driver, steps: 2_000, seed: seed) else { return }
            #expect(driver.retired.count > 50, "seed \(seed) exercised little")
        }
    }
}
