import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// A service value that knows the generation that made it, and counts how many are alive.
private final class Stamped: Sendable {
    let generation: Int
    let alive: LiveCount
    init(generation: Int, alive: LiveCount) {
        self.generation = generation
        self.alive = alive
        alive.add(1)
    }
    deinit { alive.add(-1) }
}

private final class LiveCount: Sendable {
    private let count = Atomic<Int>(0)
    func add(_ delta: Int) { count.wrappingAdd(delta, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

private final class Flag: Sendable {
    private let raised = Atomic<Bool>(false)
    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

private enum HotKeys {
    static let stamped = ServiceKey<Stamped>("stamped")
    static let other = ServiceKey<Stamped>("other")
}

@Suite("Hot path: lock-free `current` and typed lookup (Coordinator rule 9)")
struct HotPathTests {
    @Test("Readers hammering `current` while resets and rebuilds replace the snapshot see only whole snapshots")
    func currentUnderResets() async throws {
        let alive = LiveCount()
        let container = try ServiceContainer([
            ServiceSpec(HotKeys.stamped) { context in Stamped(generation: context.generation, alive: alive) },
            ServiceSpec(HotKeys.other, dependsOn: ["stamped"]) { context in
                Stamped(generation: context.generation, alive: alive)
            },
        ])
        _ = try await container.start()
        let done = Flag()
        let generations = 200

        // Each reader announces its first whole read, so the resets below race real readers
        // (on two cores the readers may otherwise not be scheduled before the loop ends).
        let (firstReads, announce) = AsyncStream<Void>.makeStream()
        let readers = (0..<4).map { _ in
            Task.detached { () -> (reads: Int, misses: Int) in
                defer { announce.yield() }  // also when a reader fails before its first read
                var reads = 0
                var misses = 0
                var lastGeneration = 0
                while !done.isRaised {
                    // The readers share the cooperative pool with the builds: let them run.
                    if (reads + misses) % 64 == 63 { await Task.yield() }
                    guard let services = container.current else {
                        misses += 1  // between a reset and the next publish
                        continue
                    }
                    let stamped = try services[HotKeys.stamped]
                    let other = try services[HotKeys.other]
                    // A snapshot is whole: every value belongs to the snapshot's generation.
                    #expect(stamped.generation == services.generation)
                    #expect(other.generation == services.generation)
                    // The published snapshot only moves forward.
                    #expect(services.generation >= lastGeneration)
                    lastGeneration = services.generation
                    reads += 1
                    if reads == 1 { announce.yield() }
                }
                return (reads, misses)
            }
        }

        try await withTimeout(.seconds(60), "4 readers to read a snapshot") {
            var announced = 0
            for await _ in firstReads {
                announced += 1
                if announced == 4 { return }
            }
        }

        weak var retired: AppServices?
        for round in 0..<generations {
            let services = try await container.start()
            if round == 0 { retired = services }
            try await container.reset()
            if round % 2 == 0 { _ = try await container.start() }  // publish while readers run, then reset again
        }
        done.raise()
        var total = 0
        for reader in readers { total += try await reader.value.reads }
        #expect(total > 0)

        // Nothing retired is kept alive by the slot: old snapshots and their values are freed
        // (those a preempted reader held up are freed by the reclaimer: wait for it).
        try await withTimeout(.seconds(60), "the retirements") { await container.published._drainRetirements() }
        #expect(retired == nil)
        let final = try await container.start()
        #expect(final.generation == generations + 1)
        withExtendedLifetime(final) {}
        #expect(container.current === final)
    }

    @Test("The slot publishes, clears and replaces, releasing each snapshot exactly once")
    func slotReleasesEachSnapshotOnce() async throws {
        let alive = LiveCount()
        let container = try ServiceContainer([
            ServiceSpec(HotKeys.stamped) { context in Stamped(generation: context.generation, alive: alive) }
        ])
        #expect(container.current == nil)
        for _ in 0..<50 {
            let services = try await container.start()
            #expect(container.current === services)
            try await container.reset()
            #expect(container.current == nil)
        }
        try await container.shutdown()
        #expect(container.current == nil)
        try await withTimeout(.seconds(60), "the retirements") { await container.published._drainRetirements() }
        #expect(alive.value == 0)
    }

    @Test("A lookup hits the key's slot cache across snapshots of one layout and reports misses clearly")
    func lookupAcrossSnapshots() async throws {
        let alive = LiveCount()
        let container = try ServiceContainer([
            ServiceSpec(HotKeys.stamped) { context in Stamped(generation: context.generation, alive: alive) }
        ])
        let first = try await container.start()
        #expect(try first[HotKeys.stamped].generation == 1)
        try await container.reset()
        let second = try await container.start()
        #expect(try second[HotKeys.stamped].generation == 2)
        // The same key in a snapshot of another layout takes the slow path and refreshes its cache.
        let otherContainer = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("padding")) { _ in 0 },
            ServiceSpec(HotKeys.stamped) { context in Stamped(generation: context.generation, alive: alive) },
        ])
        let elsewhere = try await otherContainer.start()
        #expect(try elsewhere[HotKeys.stamped].generation == 1)
        #expect(try second[HotKeys.stamped].generation == 2)
        #expect(throws: AppServices.LookupError.self) { try second[ServiceKey<Int>("stamped")] }
        #expect(throws: AppServices.LookupError.self) { try second[ServiceKey<Stamped>("missing")] }
    }
}
