import ContainerTesting
import Synchronization
import TestSupport
import Testing

@testable import Container

/// A four-node graph (`s0` <- `s1` <- `s2` <- `s3`, `s3` also on `s1`) whose changed node `s2`
/// waits on a fresh gate in every run, so a test decides when each of its builds may go on.
/// Records every value made, when each was torn down, and any teardown of a value that was
/// still in the published snapshot at that moment.
private final class GatedReloadLab: Sendable {
    /// A logical clock: teardowns and callers' questions are stamped with it.
    let clock = Atomic<Int>(0)
    let made = Locked<[Made]>([])
    /// Teardowns by value identity (the value is held, so no later value reuses its address).
    let torn = Locked<[ObjectIdentifier: (value: Made, count: Int, at: Int)]>([:])
    /// Runs of `s2` waiting on their gates, oldest first; `released` lets later runs through.
    let pending = Locked<(gates: [Gate], released: Bool)>(([], false))
    let violations = OrderLog()
    let container = Locked<ServiceContainer?>(nil)
    private let ignoresCancellation: Bool

    init(ignoresCancellation: Bool) { self.ignoresCancellation = ignoresCancellation }

    func specs(version: Int) -> [ServiceSpec] {
        let dependencies = [["s0"], ["s1"], ["s1", "s2"]]
        return [spec("s0", [])]
            + (1...3).map { spec("s\($0)", dependencies[$0 - 1], version: $0 == 2 ? version : 1) }
    }

    private func spec(_ name: String, _ dependsOn: [String], version: Int = 1) -> ServiceSpec {
        ServiceSpec(
            .made(name), dependsOn: dependsOn, options: ServiceOptions(["version": .int(version)]),
            tearDown: { [self] value in tearDown(value) }
        ) { [self] context in
            if name == "s2" { try await hold() }
            let value = Made(name: name, generation: context.generation)
            made.withLock { $0.append(value) }
            return value
        }
    }

    private func hold() async throws {
        let gate = Gate()
        let released = pending.withLock { pending in
            if !pending.released { pending.gates.append(gate) }
            return pending.released
        }
        guard !released else { return }
        if ignoresCancellation { await gate.wait() } else { try await gate.cancellableWait() }
    }

    private func tearDown(_ value: Made) {
        let now = clock.add(1, ordering: .sequentiallyConsistent).newValue
        torn.withLock { torn in
            let count = (torn[ObjectIdentifier(value)]?.count ?? 0) + 1
            torn[ObjectIdentifier(value)] = (value, count, now)
        }
        // Rule: a value leaves the published snapshot before it is torn down.
        if let current = container.withLock({ $0 })?.current, (try? current[.made(value.name)]) === value {
            violations.append("\(value.name) of generation \(value.generation) torn down while published")
        }
    }

    /// How many runs of `s2` are held on their gates now.
    var held: Int { pending.withLock { $0.gates.count } }

    /// Opens the oldest `count` gates held so far; returns how many it opened.
    @discardableResult
    func open(_ count: Int) -> Int {
        let gates = pending.withLock { pending in
            let taken = Array(pending.gates.prefix(count))
            pending.gates.removeFirst(taken.count)
            return taken
        }
        for gate in gates { gate.open() }
        return gates.count
    }

    /// Opens every gate and lets later runs through.
    func releaseAll() {
        let gates = pending.withLock { pending in
            pending.released = true
            defer { pending.gates = [] }
            return pending.gates
        }
        for gate in gates { gate.open() }
    }

    /// Snapshots checked.
    let checked = Counter()

    /// Checks a snapshot a caller got; `askedAt` is the clock when the caller called `start()`.
    func check(_ snapshot: AppServices, askedAt: Int, context: String) {
        checked.increment()
        var tornNow: [String] = []
        for name in snapshot.serviceNames {
            guard let value = try? snapshot[.made(name)] else { continue }
            guard let record = torn.withLock({ $0[ObjectIdentifier(value)] }) else { continue }
            tornNow.append(name)
            if record.at <= askedAt {
                violations.append("\(context): \(name) was torn down before the caller asked")
            }
        }
        // Torn down already, and the snapshot still published: it was published with a dead value.
        if !tornNow.isEmpty, container.withLock({ $0 })?.current === snapshot {
            violations.append("\(context): the published snapshot holds torn-down \(tornNow)")
        }
    }
}

@Suite("Reload racing reset, start and gated builds (Reload)")
struct ReloadRaceTests {
    private enum Step: CaseIterable { case reload, reset, start, open }

    @Test(
        "Seeded orders of gates, reload, reset and start: no caller gets a torn-down value; each value torn down once",
        arguments: [false, true])
    func gatedReloadRaces(ignoresCancellation: Bool) async throws {
        // What the seeds exercised, so that a schedule that never races cannot pass unnoticed.
        var coverage = (openedBySteps: 0, snapshots: 0, tornDuringRace: 0, generations: 0)
        for seed in UInt64(0)..<200 {
            var random = SplitMix64(seed: seed &* 7_919 &+ (ignoresCancellation ? 1 : 0))
            let lab = GatedReloadLab(ignoresCancellation: ignoresCancellation)
            let container = try ServiceContainer(lab.specs(version: 1))
            lab.container.withLock { $0 = container }
            var version = 1
            var tasks: [Task<Void, Never>] = []
            for index in 0..<Int.random(in: 4...10, using: &random) {
                let context = "seed \(seed) step \(index)"
                switch Step.allCases.randomElement(using: &random) ?? .start {
                case .reload:
                    version += 1
                    let graph = try ServiceGraph(lab.specs(version: version))
                    tasks.append(Task { _ = try? await container.reload(graph) })
                case .reset:
                    let names = Bool.random(using: &random) ? ["s1"] : ["s3"]
                    tasks.append(Task { _ = try? await container.reset(invalidating: names) })
                case .start:
                    let done = Gate()
                    tasks.append(
                        Task {
                            defer { done.open() }
                            let askedAt = lab.clock.load(ordering: .sequentiallyConsistent)
                            if let snapshot = try? await container.start() {
                                lab.check(snapshot, askedAt: askedAt, context: context)
                            }
                        })
                    // Until the caller has its answer or a run of `s2` is held: the next steps
                    // then race a build that is really under way.
                    try await withTimeout(.seconds(60), "\(context): the caller's build to reach s2 or end") {
                        while !done.isOpen && lab.held == 0 { await Task.yield() }
                    }
                case .open:
                    coverage.openedBySteps += lab.open(Int.random(in: 1...2, using: &random))
                }
                if Int.random(in: 0..<3, using: &random) == 0 { await Task.yield() }
            }
            lab.releaseAll()
            for task in tasks {
                try await withTimeout(.seconds(60), "seed \(seed): a reload, reset or start") { await task.value }
            }
            coverage.tornDuringRace += lab.torn.withLock { $0.count }
            let askedAt = lab.clock.load(ordering: .sequentiallyConsistent)
            let final = try await withTimeout(.seconds(60), "seed \(seed): the final start") {
                try await container.start()
            }
            lab.check(final, askedAt: askedAt, context: "seed \(seed) final")
            coverage.generations += container.generation
            try await withTimeout(.seconds(60), "seed \(seed): shutdown") { try await container.shutdown() }
            coverage.snapshots += lab.checked.count

            let made = lab.made.withLock { $0 }
            let torn = lab.torn.withLock { $0 }
            let notOnce = made.filter { torn[ObjectIdentifier($0)]?.count != 1 }
                .map { "\($0.name)@g\($0.generation): \(torn[ObjectIdentifier($0)]?.count ?? 0)" }
            #expect(notOnce.isEmpty, "seed \(seed): values not torn down exactly once: \(notOnce)")
            #expect(torn.count == made.count, "seed \(seed): a teardown of a value nobody made")
            #expect(lab.violations.entries.isEmpty, "seed \(seed): \(lab.violations.entries)")
            // The lab's container holds the lab's closures: break the cycle.
            lab.container.withLock { $0 = nil }
            if !notOnce.isEmpty || !lab.violations.entries.isEmpty { return }
        }
        #expect(coverage.openedBySteps > 50, "gates opened mid-sequence: \(coverage)")
        #expect(coverage.snapshots > 200 && coverage.tornDuringRace > 100, "\(coverage)")
    }
}
