import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// One generation of a coordinator (its graph, values, blocks and counters) as a value
/// (STYLE rule 12).
@Suite("Generation state as a value")
struct GenerationStateTests {
    /// A graph of `services` (name, dependencies), in declaration order.
    static func graph(_ services: [(String, [String])]) throws -> ServiceGraph {
        try ServiceGraph(
            services.enumerated().map { index, service in
                ServiceSpec(ServiceKey<Int>(service.0), dependsOn: service.1) { _ in index }
            })
    }

    /// a <- b <- c, and d on its own.
    static func chain() throws -> ServiceGraph { try graph([("a", []), ("b", ["a"]), ("c", ["b"]), ("d", [])]) }

    /// The part of scope `s` of: app services `a` and `b` (on `a`), scoped `s1` (on `a`) and `s2`
    /// (on `s1` and `b`): slots `s1`, `s2`, then the external `a`, `b`.
    static func part() throws -> ServiceGraph {
        var s1 = ServiceSpec(ServiceKey<Int>("s1"), dependsOn: ["a"]) { _ in 3 }
        s1.lifetime = .scope("s")
        var s2 = ServiceSpec(ServiceKey<Int>("s2"), dependsOn: ["s1", "b"]) { _ in 4 }
        s2.lifetime = .scope("s")
        let declared = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
                s1, s2,
            ], scopes: ["s"])
        return try #require(declared.scopeParts["s"])
    }

    static func box(_ name: String, generation: Int = 1, attempt: Int = 1) -> AnyServiceBox {
        ServiceBox(0, name: name, builtIn: BuildAttempt(generation: generation, attempt: attempt), tearDown: nil)
    }

    /// A state of `graph` with a value of generation 1 in every slot; the values by slot.
    static func filled(_ graph: ServiceGraph) -> (GenerationState, [AnyServiceBox]) {
        var state = GenerationState(graph: graph)
        let boxes = graph.serviceNames.map { box($0) }
        for (slot, box) in boxes.enumerated() { state.store(box, at: slot) }
        return (state, boxes)
    }

    static func ids(_ boxes: [AnyServiceBox]) -> [ObjectIdentifier] { boxes.map(ObjectIdentifier.init) }

    /// The state's values, by slot, by identity.
    static func values(_ state: GenerationState) -> [Int: ObjectIdentifier] {
        Dictionary(uniqueKeysWithValues: state.values.slotsAndValues.map { ($0.slot, ObjectIdentifier($0.box)) })
    }

    static func block(sticky: Bool = false) -> GenerationState.Block {
        .init(error: .notReady(generation: 1), sticky: sticky, allowedAt: .seconds(2))
    }

    static func expectValid(_ state: GenerationState, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(state.invariantViolations().isEmpty, "\(state.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test("A new state is generation 1 of its graph, with nothing stored, blocked or counted")
    func initial() throws {
        let graph = try Self.chain()
        let runTimes = NodeRunTimes(count: 4)
        let state = GenerationState(graph: graph, runTimes: runTimes)
        #expect(state.generation == 1 && state.graph === graph && state.runTimes === runTimes)
        #expect(state.values.isEmpty && state.ownCount == 0 && !state.isComplete && state.externalCount == 0)
        #expect(state.blocks.isEmpty && state.attempts.isEmpty && state.runs.isEmpty && state.builds == 0)
        #expect((0..<4).allSatisfy { !state.hasValue($0) && state.attempts(of: $0) == 0 && state.runs(of: $0) == 0 })
        #expect(state.block(of: 0) == nil)
        #expect(GenerationState(graph: graph).runTimes !== runTimes, "its own run times when given none")
        Self.expectValid(state)
    }

    @Test("store keeps a value per slot and counts the graph's own; the state is complete with all of them")
    func store() throws {
        var state = GenerationState(graph: try Self.chain())
        let (a, c) = (Self.box("a"), Self.box("c"))
        state.store(a, at: 0)
        state.store(c, at: 2)
        #expect(state.values[0] === a && state.values[2] === c && state.hasValue(0) && !state.hasValue(1))
        #expect(state.ownCount == 2 && !state.isComplete)
        state.store(Self.box("b"), at: 1)
        #expect(!state.isComplete)
        state.store(Self.box("d"), at: 3)
        #expect(state.ownCount == 4 && state.isComplete && state.externalCount == 0)
        Self.expectValid(state)
        #expect(GenerationState(graph: try Self.graph([])).isComplete, "an empty graph has nothing to build")
    }

    @Test("External values are counted apart: they never make a part complete, nor keep it from it")
    func externalCounts() throws {
        let part = try Self.part()
        #expect(part.builtCount == 2 && part.serviceNames == ["s1", "s2", "a", "b"], "the layout the tests assume")
        var state = GenerationState(graph: part)
        state.store(Self.box("a"), at: 2)
        state.store(Self.box("b"), at: 3)
        #expect(state.externalCount == 2 && state.ownCount == 0 && !state.isComplete)
        let a2 = Self.box("a")
        state.store(a2, at: 2)  // the app's value given again
        #expect(state.externalCount == 2 && state.values[2] === a2, "counted once")
        state.store(Self.box("s1"), at: 0)
        state.store(Self.box("s2"), at: 1)
        #expect(state.ownCount == 2 && state.isComplete)
        Self.expectValid(state)

        var ownOnly = GenerationState(graph: part)
        ownOnly.store(Self.box("s1"), at: 0)
        ownOnly.store(Self.box("s2"), at: 1)
        #expect(ownOnly.isComplete && ownOnly.externalCount == 0, "complete without its external values")
    }

    @Test("Blocks are kept per slot until the slot gets a value or the generation ends")
    func blocks() throws {
        var state = GenerationState(graph: try Self.chain())
        state.block(1, Self.block(sticky: true))
        state.block(2, Self.block())
        #expect(state.block(of: 1)?.sticky == true && state.block(of: 1)?.error.code == .notReady)
        #expect(state.block(of: 2)?.allowedAt == .seconds(2) && state.block(of: 0) == nil)
        #expect(Set(state.blocks.keys) == [1, 2])
        state.store(Self.box("b"), at: 1)
        #expect(state.block(of: 1) == nil && Set(state.blocks.keys) == [2], "a value lifts its block")
        _ = state.advance(invalidating: [])
        #expect(state.blocks.isEmpty, "a new generation starts unblocked")
        state.block(0, Self.block())
        _ = state.retireAll()
        #expect(state.blocks.isEmpty && state.generation == 2)
    }

    @Test("Builds, attempts and runs are counted per generation")
    func counters() throws {
        var state = GenerationState(graph: try Self.chain())
        let (first, second) = (state.beginBuild(), state.beginBuild())
        #expect(first == 1 && second == 2 && state.builds == 2)
        state.countRuns(0, of: 1)
        #expect(state.runs.isEmpty, "no runs counted, no array")
        state.countRuns(2, of: 1)
        state.countRuns(1, of: 1)
        state.countRuns(1, of: 3)
        #expect(state.runs == [0, 3, 0, 1] && state.runs(of: 1) == 3 && state.runs(of: 0) == 0)
        state.countAttempt(of: 2)
        state.countAttempt(of: 2)
        #expect(state.attempts == [0, 0, 2, 0] && state.attempts(of: 2) == 2 && state.attempts(of: 3) == 0)
        _ = state.advance(invalidating: [3])
        #expect(state.builds == 0 && state.runs.isEmpty && state.attempts.isEmpty)
        let next = state.beginBuild()
        #expect(next == 1)
        #expect(state.runs(of: 1) == 0 && state.attempts(of: 2) == 0)
    }

    @Test("advance(invalidating: nil) retires every value once, in slot order, and starts the next generation")
    func fullReset() throws {
        var (state, boxes) = Self.filled(try Self.chain())
        let retired = state.advance(invalidating: nil)
        #expect(retired.invalidated == [0, 1, 2, 3] && retired.slots == [0, 1, 2, 3])
        #expect(Self.ids(retired.values) == Self.ids(boxes) && retired.external.isEmpty)
        #expect(state.values.isEmpty && state.generation == 2 && state.ownCount == 0)
        let again = state.advance(invalidating: nil)
        #expect(again.invalidated == [0, 1, 2, 3], "every slot is invalidated, with a value or not")
        #expect(again.slots.isEmpty && again.values.isEmpty, "but nothing is retired twice")
        #expect(state.generation == 3)
        Self.expectValid(state)
    }

    @Test("advance(invalidating:) retires those slots and their dependents; the rest carries over")
    func partialReset() throws {
        var (state, boxes) = Self.filled(try Self.chain())
        let retired = state.advance(invalidating: [1])
        #expect(retired.invalidated == [1, 2] && retired.slots == [1, 2], "b and its dependent c")
        #expect(Self.ids(retired.values) == Self.ids([boxes[1], boxes[2]]))
        #expect(Self.values(state) == [0: ObjectIdentifier(boxes[0]), 3: ObjectIdentifier(boxes[3])])
        #expect(state.generation == 2 && state.ownCount == 2 && !state.isComplete)
        Self.expectValid(state)

        // c has no value now: invalidated, but nothing to retire. a takes b and c with it (b has none).
        let second = state.advance(invalidating: [2, 0])
        #expect(
            second.invalidated == [0, 1, 2] && second.slots == [0] && Self.ids(second.values) == [Self.ids(boxes)[0]])
        #expect(Self.values(state) == [3: ObjectIdentifier(boxes[3])])
        let none = state.advance(invalidating: [])
        #expect(none.invalidated.isEmpty && none.slots.isEmpty && state.generation == 4 && state.hasValue(3))
        Self.expectValid(state)
    }

    @Test("A part's external values are returned as external, never as values to tear down")
    func externalRetired() throws {
        var (state, boxes) = Self.filled(try Self.part())
        #expect(state.externalCount == 2 && state.ownCount == 2)
        // a (slot 2) is used by s1, and through it by s2.
        let retired = state.advance(invalidating: [2])
        #expect(retired.invalidated == [0, 1, 2] && retired.slots == [0, 1, 2])
        #expect(Self.ids(retired.values) == Self.ids([boxes[0], boxes[1]]))
        #expect(Self.ids(retired.external) == Self.ids([boxes[2]]))
        #expect(
            state.externalCount == 1 && state.ownCount == 0 && Self.values(state) == [3: ObjectIdentifier(boxes[3])])
        Self.expectValid(state)

        let all = state.advance(invalidating: nil)
        #expect(all.values.isEmpty && Self.ids(all.external) == Self.ids([boxes[3]]) && state.externalCount == 0)
        Self.expectValid(state)
    }

    @Test("A reload in place retires the rebuilt slots; the other values keep their slots on the new graph")
    func reloadInPlace() throws {
        var (state, boxes) = Self.filled(try Self.chain())
        _ = state.beginBuild()
        state.countAttempt(of: 1)
        let newGraph = try Self.chain()
        let runTimes = NodeRunTimes(count: 4)
        let plan = ReloadPlan(inPlace: [1, 2])
        let retired = state.advance(to: newGraph, plan: plan, runTimes: runTimes)
        #expect(retired.slots == [1, 2] && Self.ids(retired.values) == Self.ids([boxes[1], boxes[2]]))
        #expect(retired.external.isEmpty && retired.invalidated.isEmpty)
        #expect(Self.values(state) == [0: ObjectIdentifier(boxes[0]), 3: ObjectIdentifier(boxes[3])])
        #expect(state.graph === newGraph && state.runTimes === runTimes && state.generation == 2)
        #expect(state.builds == 0 && state.attempts.isEmpty && state.ownCount == 2)
        Self.expectValid(state)
    }

    @Test("A reload by fromOld moves carried values to their new slots and retires every other value")
    func reloadMoving() throws {
        var (state, boxes) = Self.filled(try Self.chain())
        state.block(2, Self.block(sticky: true))
        let newGraph = try Self.graph([("d", []), ("a", []), ("e", ["a"]), ("c", [])])
        // d and a carry over (from old slots 3 and 0), e is new, c is rebuilt; b is gone.
        let retired = state.advance(
            to: newGraph, plan: ReloadPlan(fromOld: [3, 0, -1, -1]), runTimes: NodeRunTimes(count: 4))
        #expect(retired.slots == [1, 2] && Self.ids(retired.values) == Self.ids([boxes[1], boxes[2]]))
        #expect(retired.external.isEmpty)
        #expect(Self.values(state) == [0: ObjectIdentifier(boxes[3]), 1: ObjectIdentifier(boxes[0])])
        #expect(state.graph === newGraph && state.generation == 2 && state.blocks.isEmpty && state.ownCount == 2)
        Self.expectValid(state)

        // Carrying a slot that has no value moves nothing and retires nothing.
        let same = try Self.graph([("d", []), ("a", []), ("e", ["a"]), ("c", [])])
        let none = state.advance(
            to: same, plan: ReloadPlan(fromOld: [0, 1, 2, 3]), runTimes: .init(count: 4))
        #expect(none.slots.isEmpty && none.values.isEmpty && state.ownCount == 2 && state.generation == 3)
        Self.expectValid(state)
    }

    @Test("A part's reload by fromOld returns its external values as external and counts none left")
    func partReloadMoving() throws {
        var (state, boxes) = Self.filled(try Self.part())
        let newPart = try Self.part()
        // s1 carries over, s2 is rebuilt; the app values are given again after the reload.
        let retired = state.advance(
            to: newPart, plan: ReloadPlan(fromOld: [0, -1]), runTimes: NodeRunTimes(count: 4))
        #expect(retired.slots == [1, 2, 3] && Self.ids(retired.values) == Self.ids([boxes[1]]))
        #expect(Self.ids(retired.external) == Self.ids([boxes[2], boxes[3]]))
        #expect(Self.values(state) == [0: ObjectIdentifier(boxes[0])])
        #expect(state.externalCount == 0 && state.ownCount == 1 && !state.isComplete)
        Self.expectValid(state)
        state.store(Self.box("a"), at: 2)
        state.store(Self.box("s2", generation: 2), at: 1)
        #expect(state.externalCount == 1 && state.ownCount == 2 && state.isComplete)
        Self.expectValid(state)
    }

    @Test("A part's reload in place keeps its external values, and counts them")
    func partReloadInPlace() throws {
        var (state, boxes) = Self.filled(try Self.part())
        let newPart = try Self.part()
        let plan = ReloadPlan(inPlace: [1])
        let retired = state.advance(to: newPart, plan: plan, runTimes: NodeRunTimes(count: 4))
        #expect(retired.slots == [1] && Self.ids(retired.values) == Self.ids([boxes[1]]) && retired.external.isEmpty)
        #expect(state.hasValue(2) && state.hasValue(3), "in place: every value not rebuilt keeps its slot")
        // The coordinator plans in place only for the app's graph, which has no external slots;
        // a part reloaded in place still counts its kept app values as the app's.
        #expect(state.externalCount == 2)
        #expect(state.ownCount == 1 && !state.isComplete, "s2 is missing")
        #expect(state.invariantViolations().isEmpty, "\(state.invariantViolations())")
    }

    @Test("retireBuiltInThisGeneration ends the own values made in this generation only, and keeps the generation")
    func retireBuiltInThisGeneration() throws {
        var (state, boxes) = Self.filled(try Self.chain())
        _ = state.advance(invalidating: [1])
        let b2 = Self.box("b", generation: 2)
        state.store(b2, at: 1)
        let retired = state.retireBuiltInThisGeneration()
        #expect(Self.ids(retired) == Self.ids([b2]))
        #expect(Self.values(state) == [0: ObjectIdentifier(boxes[0]), 3: ObjectIdentifier(boxes[3])], "carried over")
        let again = state.retireBuiltInThisGeneration()
        #expect(again.isEmpty, "nothing is retired twice")
        #expect(state.generation == 2 && state.ownCount == 2)

        // A part: an external value is the app's, whatever generation made it.
        var part = GenerationState(graph: try Self.part())
        let s1 = Self.box("s1")
        part.store(s1, at: 0)
        part.store(Self.box("a"), at: 2)
        let partRetired = part.retireBuiltInThisGeneration()
        #expect(Self.ids(partRetired) == Self.ids([s1]))
        #expect(part.hasValue(2) && part.externalCount == 1)
        Self.expectValid(part)
    }

    @Test("retireAll ends every value once (own as values, external as external) and keeps the generation")
    func retireAll() throws {
        var (state, boxes) = Self.filled(try Self.part())
        state.block(1, Self.block())
        let retired = state.retireAll()
        #expect(retired.slots == [0, 1, 2, 3] && retired.invalidated.isEmpty)
        #expect(Self.ids(retired.values) == Self.ids([boxes[0], boxes[1]]))
        #expect(Self.ids(retired.external) == Self.ids([boxes[2], boxes[3]]))
        #expect(state.values.isEmpty && state.externalCount == 0 && state.blocks.isEmpty && state.generation == 1)
        let again = state.retireAll()
        #expect(again.slots.isEmpty && again.values.isEmpty && again.external.isEmpty)
        Self.expectValid(state)
    }

    @Test("Names of slots come back in slot order")
    func names() throws {
        let state = GenerationState(graph: try Self.chain())
        #expect(state.names(of: Set([3, 0, 2])) == ["a", "c", "d"] && state.names(of: [1]) == ["b"])
        #expect(state.names(of: []).isEmpty)
    }

    @Test("A value in another service's slot, or from a later generation, breaks the invariants")
    func invariants() throws {
        var misplaced = GenerationState(graph: try Self.chain())
        misplaced.store(Self.box("b"), at: 0)
        #expect(misplaced.invariantViolations().count == 1)

        var future = GenerationState(graph: try Self.chain())
        future.store(Self.box("a", generation: 2), at: 0)
        #expect(future.invariantViolations().count == 1)
        _ = future.advance(invalidating: [3])
        #expect(future.invariantViolations().isEmpty, "generation 2 now")

        var part = GenerationState(graph: try Self.part())
        part.store(Self.box("a", generation: 5), at: 2)
        #expect(part.invariantViolations().isEmpty, "an app value may come from any generation of the app")
    }

    @Test("Random stores, resets, reloads and retirements: every value stored is retired exactly once")
    func randomSequences() async throws {
        let steps = ThreadSanitizerHooks.acquire != nil ? 150 : 600
        for seed in UInt64(1)...10 {
            var driver = try GenerationStateDriver(seed: seed, scoped: seed % 2 == 0)
            guard try await drive(&driver, steps: steps, seed: seed) else { return }
            #expect(driver.retired.count > steps / 10, "seed \(seed) exercised little")
            if seed % 2 == 0 { #expect(driver.externalRetired > 0, "seed \(seed) retired no external value") }
        }
    }
}

/// Drives a ``GenerationState`` with random events, against a model: the values by slot, the
/// generation, the blocks and counters, and how many times each value was retired. `scoped`
/// drivers work on scope parts (with external slots) and reload by `fromOld` only, as the
/// coordinator does; the others reload in place too.
struct GenerationStateDriver: SeededDriver {
    static let appPool = ["a", "b", "c", "d", "e"]
    static let scopedPool = ["s1", "s2", "s3", "s4"]

    var random: SplitMix64
    let scoped: Bool
    var state: GenerationState
    /// The model.
    var graph: ServiceGraph
    var runTimes: NodeRunTimes?
    var generation = 1
    var values: [Int: AnyServiceBox] = [:]
    var blocked = Set<Int>()
    var attempts: [Int: Int] = [:]
    var runs: [Int: Int] = [:]
    var builds = 0
    /// Every value stored (held, so that no identifier is reused), and how it was retired.
    var stored: [AnyServiceBox] = []
    var external = Set<ObjectIdentifier>()
    var retired: [ObjectIdentifier: Int] = [:]
    var externalRetired = 0
    /// The specs of the graph, to declare it again for an in-place reload.
    var specs: [(String, [String])]
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64, scoped: Bool) throws {
        random = SplitMix64(seed: seed)
        self.scoped = scoped
        (graph, specs) = try Self.graph(scoped: scoped, random: &random)
        state = GenerationState(graph: graph)
    }

    /// A random graph and its specs (name, dependencies): some app services, each on some
    /// declared before it; when `scoped`, the part of scope `s` of that and some scoped services.
    static func graph(
        scoped: Bool, random: inout SplitMix64
    ) throws -> (graph: ServiceGraph, specs: [(String, [String])]) {
        var names = Array(appPool.shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random)))
        let appCount = names.count
        if scoped { names += scopedPool.shuffled(using: &random).prefix(Int.random(in: 1...4, using: &random)) }
        var specs: [(String, [String])] = []
        var declared: [ServiceSpec] = []
        for (slot, name) in names.enumerated() {
            let on = (0..<slot).filter { _ in Int.random(in: 0..<3, using: &random) == 0 }.map { names[$0] }
            specs.append((name, on))
            var spec = ServiceSpec(ServiceKey<Int>(name), dependsOn: on) { _ in slot }
            if slot >= appCount { spec.lifetime = .scope("s") }
            declared.append(spec)
        }
        guard scoped else { return (try ServiceGraph(declared), specs) }
        return (try #require(try ServiceGraph(declared, scopes: ["s"]).scopeParts["s"]), specs)
    }

    mutating func step() throws {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<38: store()
        case 38..<43: block()
        case 43..<53: count()
        case 53..<58: retireBuilt()
        case 58..<78: reset()
        case 78..<90: try reload()
        default: retireAll()
        }
        check()
    }

    /// Retires what is left: then every value stored must have been retired exactly once, as a
    /// value to tear down when it was the graph's own, as external when it was an app value.
    mutating func finish() {
        retireAll()
        for box in stored where retired[ObjectIdentifier(box)] != 1 {
            violations.append("\(box.name)#\(box.sequence) retired \(retired[ObjectIdentifier(box)] ?? 0) times")
        }
        if retired.count != stored.count { violations.append("a value retired that was never stored") }
    }

    mutating func check() {
        violations += state.invariantViolations()
        let actual = state.values.slotsAndValues.map { "\($0.slot)=\(ObjectIdentifier($0.box))" }
        let model = values.sorted { $0.key < $1.key }.map { "\($0.key)=\(ObjectIdentifier($0.value))" }
        if actual != model { violations.append("values \(actual), model \(model)") }
        let own = values.keys.count { $0 < graph.builtCount }
        if state.ownCount != own || state.isComplete != (own == graph.builtCount)
            || state.externalCount != values.count - own
        {
            violations.append("own \(state.ownCount), external \(state.externalCount), model \(own) of \(values.count)")
        }
        if state.generation != generation { violations.append("generation \(state.generation), model \(generation)") }
        if state.graph !== graph || (runTimes != nil && state.runTimes !== runTimes) {
            violations.append("another graph or run times")
        }
        if Set(state.blocks.keys) != blocked
            || graph.nodes.indices.contains(where: { state.hasValue($0) != (values[$0] != nil) })
        {
            violations.append("blocks \(state.blocks.keys.sorted()), model \(blocked.sorted())")
        }
        let counts = graph.nodes.indices.map { "\(state.attempts(of: $0))/\(state.runs(of: $0))" }
        let modelCounts = graph.nodes.indices.map { "\(attempts[$0] ?? 0)/\(runs[$0] ?? 0)" }
        if counts != modelCounts || state.builds != builds {
            violations.append("counts \(counts) \(state.builds), model \(modelCounts) \(builds)")
        }
    }

    /// Counts what `result` retired against the model's values of `slots` (in that order); then
    /// takes them out of the model.
    mutating func retire(_ result: GenerationState.Retired, slots: [Int], from old: ServiceGraph) {
        let retiring = slots.filter { values[$0] != nil }
        let own = retiring.filter { $0 < old.builtCount }.map { ObjectIdentifier(values[$0]!) }
        let app = retiring.filter { $0 >= old.builtCount }.map { ObjectIdentifier(values[$0]!) }
        if result.slots != retiring || result.values.map(ObjectIdentifier.init) != own
            || result.external.map(ObjectIdentifier.init) != app
        {
            violations.append(
                "retired \(result.slots) \(result.values.map(\.name)) \(result.external.map(\.name)), model \(retiring)"
            )
        }
        for id in result.values.map(ObjectIdentifier.init) + result.external.map(ObjectIdentifier.init) {
            retired[id, default: 0] += 1
        }
        if result.values.contains(where: { external.contains(ObjectIdentifier($0)) }) {
            violations.append("an app value to tear down")
        }
        externalRetired += result.external.count
        for slot in retiring { values[slot] = nil }
    }

    mutating func startGeneration() {
        generation += 1
        blocked = []
        attempts = [:]
        runs = [:]
        builds = 0
    }

    // MARK: Events

    /// A value for a slot without one: built in this generation, or for an external slot, given
    /// by the app (made in any generation).
    mutating func store() {
        let missing = graph.nodes.indices.filter { values[$0] == nil }
        guard let slot = missing.randomElement(using: &random) else { return }
        let isExternal = slot >= graph.builtCount
        // An app value of this generation's number half the time: it is still never this part's to retire.
        let made =
            isExternal && Bool.random(using: &random) ? Int.random(in: 1...generation, using: &random) : generation
        let box = ServiceBox(
            0, name: graph.nodes[slot].name, builtIn: BuildAttempt(generation: made, attempt: builds), tearDown: nil)
        history.append("store \(box.name) of g\(made) at \(slot)")
        state.store(box, at: slot)
        values[slot] = box
        blocked.remove(slot)
        stored.append(box)
        if isExternal { external.insert(ObjectIdentifier(box)) }
    }

    mutating func block() {
        guard graph.builtCount > 0 else { return }
        let slot = Int.random(in: 0..<graph.builtCount, using: &random)
        history.append("block \(slot)")
        state.block(
            slot, .init(error: .notReady(generation: generation), sticky: Bool.random(using: &random), allowedAt: .zero)
        )
        blocked.insert(slot)
    }

    mutating func count() {
        guard graph.builtCount > 0 else { return }
        let slot = Int.random(in: 0..<graph.builtCount, using: &random)
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            history.append("beginBuild")
            builds += 1
            let attempt = state.beginBuild()
            if attempt != builds { violations.append("build \(attempt), model \(builds)") }
        case 1:
            let count = Int.random(in: 0...2, using: &random)
            history.append("countRuns(\(count), of: \(slot))")
            state.countRuns(count, of: slot)
            runs[slot, default: 0] += count
        default:
            history.append("countAttempt(of: \(slot))")
            state.countAttempt(of: slot)
            attempts[slot, default: 0] += 1
        }
    }

    mutating func retireBuilt() {
        history.append("retireBuiltInThisGeneration")
        let slots = values.keys.sorted().filter { $0 < graph.builtCount && values[$0]!.builtInGeneration == generation }
        let expected = slots.map { ObjectIdentifier(values[$0]!) }
        let result = state.retireBuiltInThisGeneration()
        if result.map(ObjectIdentifier.init) != expected {
            violations.append("retireBuiltInThisGeneration gave \(result.map(\.name)), model \(slots)")
        }
        for id in result.map(ObjectIdentifier.init) { retired[id, default: 0] += 1 }
        for slot in slots { values[slot] = nil }
    }

    mutating func reset() {
        let invalidated: Set<Int>? =
            Int.random(in: 0..<4, using: &random) == 0
            ? nil : Set(graph.nodes.indices.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
        history.append("reset \(invalidated.map { "\($0.sorted())" } ?? "all")")
        // The invalidated slots and, transitively, whatever depends on them.
        var slots = invalidated ?? Set(graph.nodes.indices)
        var changed = true
        while changed {
            changed = false
            for slot in graph.nodes.indices where !slots.contains(slot) {
                guard graph.nodes[slot].dependencies.contains(where: slots.contains) else { continue }
                slots.insert(slot)
                changed = true
            }
        }
        let result = state.advance(invalidating: invalidated)
        if result.invalidated != slots.sorted() {
            violations.append("invalidated \(result.invalidated), model \(slots.sorted())")
        }
        retire(result, slots: slots.sorted(), from: graph)
        startGeneration()
    }

    /// A new graph: services of the same name carry over by `fromOld`, most of the time; or,
    /// for an app graph, the same graph declared again, reloaded in place.
    mutating func reload() throws {
        let old = graph
        let times = NodeRunTimes(count: 0)
        if !scoped && Bool.random(using: &random) {
            let newGraph = try GenerationStateTests.graph(specs)
            let rebuilt = old.nodes.indices.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
            history.append("reload \(old.serviceNames) in place rebuilding \(rebuilt)")
            let plan = ReloadPlan(inPlace: rebuilt)
            retire(state.advance(to: newGraph, plan: plan, runTimes: times), slots: rebuilt, from: old)
            graph = newGraph
        } else {
            let (newGraph, newSpecs) = try Self.graph(scoped: scoped, random: &random)
            specs = newSpecs
            let fromOld = (0..<newGraph.builtCount).map { slot in
                guard let oldSlot = old.serviceNames.firstIndex(of: newGraph.serviceNames[slot]),
                    oldSlot < old.builtCount,
                    Int.random(in: 0..<4, using: &random) != 0
                else { return -1 }
                return oldSlot
            }
            history.append("reload \(old.serviceNames) -> \(newGraph.serviceNames) from \(fromOld)")
            let carried = Set(fromOld.filter { $0 >= 0 })
            let result = state.advance(to: newGraph, plan: ReloadPlan(fromOld: fromOld), runTimes: times)
            retire(result, slots: values.keys.sorted().filter { !carried.contains($0) }, from: old)
            var moved: [Int: AnyServiceBox] = [:]
            for (slot, oldSlot) in fromOld.enumerated() where oldSlot >= 0 { moved[slot] = values[oldSlot] }
            values = moved
            graph = newGraph
        }
        runTimes = times
        startGeneration()
    }

    mutating func retireAll() {
        history.append("retireAll")
        let result = state.retireAll()
        if !result.invalidated.isEmpty { violations.append("retireAll invalidated \(result.invalidated)") }
        retire(result, slots: Array(graph.nodes.indices), from: graph)
        blocked = []
    }
}
