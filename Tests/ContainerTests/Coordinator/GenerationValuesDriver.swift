import ContainerTesting
import Testing

@testable import Container

/// Drives ``GenerationValues`` with random attempts, resets, reloads, failures and shutdowns,
/// against a model: the values by slot, the generation, the runs, and how often each value was
/// returned for teardown.
struct GenerationValuesDriver: SeededDriver {
    static let pool = ["a", "b", "c", "d", "e", "f"]

    var random: SplitMix64
    var values: GenerationValues
    /// The model: the graph's names and each slot's dependencies, the values by slot, the runs.
    var graph: ServiceGraph
    var names: [String]
    var dependencies: [[Int]]
    var generation = 1
    var kept: [Int: AnyServiceBox] = [:]
    var runs: [Int] = []
    /// Every value made (held, so no identifier is reused), and how many times it was returned for teardown.
    var made: [AnyServiceBox] = []
    var retired: [ObjectIdentifier: Int] = [:]
    var attempt = 1
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) throws {
        random = SplitMix64(seed: seed)
        (graph, names, dependencies) = try Self.graph(random: &random)
        values = GenerationValues(graph: graph)
    }

    /// A random graph of some of ``pool``, each depending on some of the ones declared before it.
    static func graph(random: inout SplitMix64) throws -> (ServiceGraph, [String], [[Int]]) {
        let names = Array(pool.shuffled(using: &random).prefix(Int.random(in: 1...pool.count, using: &random)))
        var dependencies: [[Int]] = []
        var specs: [ServiceSpec] = []
        for (slot, name) in names.enumerated() {
            let on = (0..<slot).filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
            dependencies.append(on)
            specs.append(ServiceSpec(ServiceKey<Int>(name), dependsOn: on.map { names[$0] }) { _ in slot })
        }
        return (try ServiceGraph(specs), names, dependencies)
    }

    mutating func step() throws {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<45: keep()
        case 45..<55: retireBuilt()
        case 55..<75: reset()
        case 75..<90: try reload()
        default: retireAll()
        }
        check()
    }

    /// Retires what is left; then every value made must have been returned exactly once.
    mutating func finish() {
        retireAll()
        for box in made where retired[ObjectIdentifier(box)] != 1 {
            violations.append("\(box.name)#\(box.sequence) retired \(retired[ObjectIdentifier(box)] ?? 0) times")
        }
        if retired.count != made.count { violations.append("a value retired that was never made") }
    }

    mutating func check() {
        violations += values.invariantViolations()
        let actual = values.kept.slotsAndValues.map { "\($0.slot)=\(ObjectIdentifier($0.box))" }
        let model = kept.sorted { $0.key < $1.key }.map { "\($0.key)=\(ObjectIdentifier($0.value))" }
        if actual != model || values.kept.count != kept.count { violations.append("kept \(actual), model \(model)") }
        if values.generation != generation { violations.append("generation \(values.generation), model \(generation)") }
        if values.runs != runs { violations.append("runs \(values.runs), model \(runs)") }
        if values.graph !== graph || values.builtNames != names { violations.append("another graph") }
    }

    /// Counts `boxes` as returned for teardown; each must have been kept.
    mutating func retire(_ boxes: [AnyServiceBox], expected: [AnyServiceBox], ordered: Bool) {
        let got = boxes.map(ObjectIdentifier.init)
        let want = expected.map(ObjectIdentifier.init)
        if ordered ? got != want : Set(got) != Set(want) || got.count != want.count {
            violations.append("retired \(boxes.map(\.name)), model \(expected.map(\.name))")
        }
        for id in got { retired[id, default: 0] += 1 }
    }

    /// The model's values in slot order, those of `slots` only.
    func keptValues(in slots: (Int) -> Bool) -> [AnyServiceBox] {
        kept.keys.sorted().filter(slots).compactMap { kept[$0] }
    }

    // MARK: Events

    /// An attempt: reuses some kept values, makes some of the missing ones.
    mutating func keep() {
        var built: [Int: AnyServiceBox] = [:]
        for slot in names.indices where Bool.random(using: &random) {
            if let box = kept[slot] {
                built[slot] = box
            } else {
                let box = ServiceBox(
                    0, name: names[slot], builtIn: BuildAttempt(generation: generation, attempt: attempt),
                    tearDown: nil)
                built[slot] = box
                made.append(box)
            }
        }
        attempt += 1
        let succeeded = Int.random(in: 0..<3, using: &random) == 0
        let attemptRuns = names.map { _ in Int.random(in: 0...2, using: &random) }
        history.append("keep \(built.keys.sorted()) runs \(attemptRuns)\(succeeded ? " succeeded" : "")")
        let nodes: [BuildReport.NodeReport] = zip(names, attemptRuns).map {
            .init(
                name: $0,
                outcome: succeeded
                    ? .succeeded(duration: .zero)
                    : .failed(NodeFailure(kind: .transient, message: "x", error: TestError())),
                runs: $1, startedAt: nil, endedAt: nil)
        }
        let report = BuildReport(
            generation: generation, attempt: attempt, nodes: nodes, startedAt: .zero, endedAt: .zero,
            wasCancelled: false)
        values.keep(SlotValues(built), report: report)
        kept.merge(built) { $1 }
        guard !succeeded else { return }
        if runs.isEmpty { runs = names.map { _ in 0 } }
        for slot in runs.indices { runs[slot] += attemptRuns[slot] }
    }

    mutating func retireBuilt() {
        history.append("retireBuiltInThisGeneration")
        let expected = keptValues { kept[$0]?.builtInGeneration == generation }
        retire(values.retireBuiltInThisGeneration(), expected: expected, ordered: true)
        for box in expected { kept = kept.filter { $0.value !== box } }
    }

    mutating func reset() {
        let invalidated: Set<Int>? =
            Int.random(in: 0..<4, using: &random) == 0
            ? nil : Set(names.indices.filter { _ in Int.random(in: 0..<3, using: &random) == 0 })
        history.append("reset \(invalidated.map { "\($0.sorted())" } ?? "all")")
        // The invalidated slots and, transitively, whatever depends on them.
        var slots = invalidated ?? Set(names.indices)
        var changed = true
        while changed {
            changed = false
            for slot in names.indices where !slots.contains(slot) && dependencies[slot].contains(where: slots.contains)
            {
                slots.insert(slot)
                changed = true
            }
        }
        let expected = keptValues(in: slots.contains)
        let result = values.advance(invalidating: invalidated)
        if result.slots != slots {
            violations.append("reset retired slots \(result.slots.sorted()), model \(slots.sorted())")
        }
        retire(result.values, expected: expected, ordered: invalidated == nil)
        kept = kept.filter { !slots.contains($0.key) }
        generation += 1
        runs = []
    }

    /// A new graph; services with the same name carry over, most of the time.
    mutating func reload() throws {
        let (newGraph, newNames, newDependencies) = try Self.graph(random: &random)
        let carrying = newNames.map { name in
            guard let old = names.firstIndex(of: name), Int.random(in: 0..<4, using: &random) != 0 else { return -1 }
            return old
        }
        history.append("reload \(names) -> \(newNames) carrying \(carrying)")
        let carried = Set(carrying.filter { $0 >= 0 })
        let expected = keptValues { !carried.contains($0) }
        retire(values.advance(to: newGraph, carrying: carrying), expected: expected, ordered: true)
        var moved: [Int: AnyServiceBox] = [:]
        for (slot, old) in carrying.enumerated() where old >= 0 { moved[slot] = kept[old] }
        (graph, names, dependencies, kept) = (newGraph, newNames, newDependencies, moved)
        generation += 1
        runs = []
    }

    mutating func retireAll() {
        history.append("retireAll")
        retire(values.retireAll(), expected: keptValues { _ in true }, ordered: true)
        kept = [:]
    }
}
