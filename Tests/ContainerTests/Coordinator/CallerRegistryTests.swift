import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// The coordinator's parked callers as a value, driven with integer waiters (STYLE rule 12).
@Suite("Caller registry as a value")
struct CallerRegistryTests {
    typealias Registry = CallerRegistry<Int>

    /// Parks caller `id` with waiter `id * 10` and, unless `label` is `nil`, the name `c<id>`.
    static func park(_ registry: inout Registry, _ id: Int, label: String? = nil) {
        registry.park(.init(id: id, label: label ?? "c\(id)", waiter: id * 10))
    }

    /// Removes caller `id`, which must be parked.
    static func take(
        _ registry: inout Registry, _ id: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Registry.Entry {
        let entry = registry.remove(id)
        return try #require(entry, "caller \(id) is parked", sourceLocation: sourceLocation)
    }

    static func expectValid(_ registry: Registry, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            registry.invariantViolations().isEmpty, "\(registry.invariantViolations())",
            sourceLocation: sourceLocation)
    }

    @Test("An empty registry has nobody, answers nobody, and removes nobody")
    func empty() {
        var registry = Registry()
        #expect(registry.isEmpty && registry.count == 0)
        #expect(registry.remove(1) == nil)
        let all = registry.removeAll(named: true)
        #expect(all.waiters.isEmpty && all.labels.isEmpty)
        Self.expectValid(registry)
    }

    @Test("removeAll hands back every parked caller in arrival order, then the registry is empty")
    func removeAllInArrivalOrder() {
        var registry = Registry()
        for id in [3, 1, 2] { Self.park(&registry, id) }
        #expect(registry.count == 3 && !registry.isEmpty)
        Self.expectValid(registry)
        let all = registry.removeAll(named: true)
        #expect(all.waiters == [30, 10, 20])
        #expect(all.labels == ["c3", "c1", "c2"])
        #expect(registry.isEmpty && registry.count == 0)
        Self.expectValid(registry)
        #expect(registry.removeAll(named: true).waiters.isEmpty, "each caller is handed back once")
        #expect(registry.remove(3) == nil, "a caller answered by removeAll is not parked any more")
    }

    @Test("Unnamed removeAll returns no names; named pads unnamed callers with empty names")
    func names() {
        var registry = Registry()
        // Unnamed callers before and after the first named one: the names array starts late.
        Self.park(&registry, 1, label: "")
        Self.park(&registry, 2, label: "")
        Self.park(&registry, 3)
        Self.park(&registry, 4, label: "")
        Self.expectValid(registry)
        let named = registry.removeAll(named: true)
        #expect(named.waiters == [10, 20, 30, 40])
        #expect(named.labels == ["", "", "c3", ""])

        for id in 5...6 { Self.park(&registry, id) }
        let unnamed = registry.removeAll(named: false)
        #expect(unnamed.waiters == [50, 60] && unnamed.labels.isEmpty)

        // Nobody named at all, asked for names: one empty name per waiter.
        for id in 7...8 { Self.park(&registry, id, label: "") }
        let blank = registry.removeAll(named: true)
        #expect(blank.waiters == [70, 80] && blank.labels == ["", ""])
        Self.expectValid(registry)
    }

    @Test("remove takes one caller out exactly once; unknown and answered callers give nil")
    func removeOnce() throws {
        var registry = Registry()
        for id in 1...4 { Self.park(&registry, id) }
        let entry = try Self.take(&registry, 2)
        #expect(entry.id == 2 && entry.label == "c2" && entry.waiter == 20)
        #expect(registry.count == 3)
        Self.expectValid(registry)
        #expect(registry.remove(2) == nil, "a cancelled caller is answered once")
        #expect(registry.remove(99) == nil, "a caller that never parked")
        #expect(registry.count == 3)
        let unnamed = try Self.take(&registry, 4)
        #expect(unnamed.waiter == 40)
        Self.expectValid(registry)
        let rest = registry.removeAll(named: true)
        #expect(rest.waiters == [10, 30] && rest.labels == ["c1", "c3"], "the callers that left are skipped")
        #expect(registry.remove(1) == nil)
        Self.expectValid(registry)
    }

    @Test("A removed caller keeps its name; an unnamed one has an empty name")
    func removedNames() throws {
        var registry = Registry()
        Self.park(&registry, 1, label: "")
        Self.park(&registry, 2)
        Self.park(&registry, 3, label: "")
        #expect(try Self.take(&registry, 1).label == "")
        #expect(try Self.take(&registry, 2).label == "c2")
        #expect(try Self.take(&registry, 3).label == "")
        #expect(registry.isEmpty)
    }

    @Test("Callers parked after a removal are found by remove and come back in order")
    func parkAfterRemove() throws {
        var registry = Registry()
        for id in 1...3 { Self.park(&registry, id) }
        _ = try Self.take(&registry, 1)
        Self.park(&registry, 4, label: "")
        Self.park(&registry, 5)
        Self.expectValid(registry)
        let late = try Self.take(&registry, 4)
        #expect(late.waiter == 40 && late.label == "")
        #expect(registry.count == 3)
        Self.expectValid(registry)
        let rest = registry.removeAll(named: true)
        #expect(rest.waiters == [20, 30, 50] && rest.labels == ["c2", "c3", "c5"])
    }

    @Test("Removing the last caller empties the registry; it then starts afresh")
    func removeLastClears() throws {
        var registry = Registry()
        for id in 1...2 { Self.park(&registry, id) }
        _ = try Self.take(&registry, 2)
        _ = try Self.take(&registry, 1)
        #expect(registry.isEmpty && registry.count == 0)
        Self.expectValid(registry)
        #expect(registry.remove(1) == nil)
        // A caller id may come back (the storage reuses nothing, but the registry must not care).
        Self.park(&registry, 1)
        Self.park(&registry, 7, label: "")
        #expect(registry.count == 2)
        let again = try Self.take(&registry, 1)
        #expect(again.waiter == 10)
        let rest = registry.removeAll(named: true)
        #expect(rest.waiters == [70] && rest.labels == [""])
    }

    @Test("The same id parked twice (a storage bug) is reported as a broken invariant after a removal")
    func duplicateIDBreaksInvariants() {
        var registry = Registry()
        Self.park(&registry, 1)
        Self.park(&registry, 1)
        Self.park(&registry, 2)
        _ = registry.remove(1)
        #expect(!registry.invariantViolations().isEmpty, "one caller left under the id has no position")
    }

    @Test("Random park, remove and removeAll: every waiter is handed back exactly once, in arrival order")
    func randomSequences() async throws {
        for seed in UInt64(1)...20 {
            var driver = CallerRegistryDriver(seed: seed)
            guard try await drive(&driver, steps: 3_000, seed: seed) else { return }
        }
    }
}

/// Drives a ``CallerRegistry`` with random events against a model: an array of parked callers.
struct CallerRegistryDriver: SeededDriver {
    typealias Registry = CallerRegistry<Int>

    var random: SplitMix64
    var registry = Registry()
    /// The model: the parked callers (id, name), in arrival order; a caller's waiter is its id.
    var parked: [(id: Int, label: String)] = []
    /// How many times each waiter was handed back.
    var answers: [Int: Int] = [:]
    var nextID = 1
    var violations: [String] = []
    var history: [String] = []

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<55: park()
        case 55..<90: remove()
        default: removeAll(named: Bool.random(using: &random))
        }
        violations += registry.invariantViolations()
        if registry.count != parked.count || registry.isEmpty != parked.isEmpty {
            violations.append("count \(registry.count), the model has \(parked.count)")
        }
    }

    /// Empties the registry and checks that every waiter ever parked came back exactly once.
    mutating func finish() {
        removeAll(named: true)
        for id in 1..<nextID where answers[id] != 1 {
            violations.append("waiter \(id) handed back \(answers[id] ?? 0) times")
        }
    }

    mutating func park() {
        let id = nextID
        nextID += 1
        // A third of the callers are untraced (no name).
        let label = Int.random(in: 0..<3, using: &random) == 0 ? "" : "c\(id)"
        history.append("park \(id) '\(label)'")
        registry.park(.init(id: id, label: label, waiter: id))
        parked.append((id, label))
    }

    mutating func remove() {
        // A parked caller, one answered already or never seen, or (rarely) an unknown id.
        let id =
            !parked.isEmpty && Int.random(in: 0..<4, using: &random) != 0
            ? parked[Int.random(in: parked.indices, using: &random)].id
            : Int.random(in: 1...(nextID + 2), using: &random)
        history.append("remove \(id)")
        let expected = parked.firstIndex { $0.id == id }
        let entry = registry.remove(id)
        switch (expected, entry) {
        case (nil, nil): return
        case (let index?, let entry?):
            let model = parked.remove(at: index)
            if entry.id != id || entry.waiter != id || entry.label != model.label {
                violations.append("remove(\(id)) gave \(entry.id), \(entry.waiter), '\(entry.label)'")
            }
            answers[entry.waiter, default: 0] += 1
        case (nil, let entry?):
            violations.append("remove(\(id)) found waiter \(entry.waiter), which is not parked")
        case (_?, nil):
            violations.append("remove(\(id)) did not find a parked caller")
        }
    }

    mutating func removeAll(named: Bool) {
        history.append("removeAll(named: \(named))")
        let all = registry.removeAll(named: named)
        if all.waiters != parked.map(\.id) {
            violations.append("removeAll gave \(all.waiters), the model has \(parked.map(\.id))")
        }
        let labels = named ? parked.map(\.label) : []
        if all.labels != labels { violations.append("removeAll named \(all.labels), the model has \(labels)") }
        for waiter in all.waiters { answers[waiter, default: 0] += 1 }
        parked = []
    }
}
