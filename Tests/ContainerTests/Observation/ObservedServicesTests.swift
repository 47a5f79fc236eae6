import ContainerTesting
import Observation
import Testing

@testable import Container

/// Counts the changes `withObservationTracking` reports for what `read` reads, reinstalling the
/// tracking after each, and lets a test wait for the next one.
@MainActor
private final class ChangeCounter {
    private(set) var count = 0
    /// Set by each change told on the main actor (a change told elsewhere traps).
    private(set) var toldOnMainActor = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let read: @MainActor () -> Void

    init(_ read: @escaping @MainActor () -> Void) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking {
            read()
        } onChange: { [weak self] in
            // Told in the mutation's willSet, which must run on the main actor (the check traps
            // otherwise); counted after it.
            MainActor.assumeIsolated { self?.toldOnMainActor += 1 }
            Task { @MainActor in self?.changed() }
        }
    }

    private func changed() {
        count += 1
        track()
        let resumed = waiters
        waiters = []
        for waiter in resumed { waiter.resume() }
    }

    /// Waits until at least `count` changes were counted (failing the test after 30 s, at the
    /// caller's line).
    func wait(until expected: Int, fileID: String = #fileID, line: Int = #line) async throws {
        try await withTimeout(.seconds(30), "\(expected) changes", fileID: fileID, line: line) { @MainActor in
            while self.count < expected {
                await withCheckedContinuation { self.waiters.append($0) }
            }
        }
    }
}

@Suite("ObservedServices: an Observable view that follows the newest snapshot, per service")
@MainActor
struct ObservedServicesTests {
    @Test("a reader of one service is told once per snapshot or reset that changes it, never for another service")
    func perServiceTracking() async throws {
        let container = try ServiceContainer([
            countedSpec("configuration", log: OrderLog()),
            countedSpec("session", dependsOn: ["configuration"], log: OrderLog()),
            countedSpec("feed", dependsOn: ["session"], log: OrderLog(), start: .lazy),
        ])
        let observed = ObservedServices(container)
        let session = ServiceKey<Made>.made("session")
        #expect(observed[session] == nil && observed.snapshot == nil)
        let sessionReader = ChangeCounter { _ = observed[session] }
        let snapshotReader = ChangeCounter { _ = observed.snapshot }

        _ = try await container.start()
        try await snapshotReader.wait(until: 1)
        try await sessionReader.wait(until: 1)
        #expect(observed[session]?.generation == 1 && observed.generation == 1)

        // A growth that builds the lazy feed, then a reset of the feed alone: new snapshots,
        // the same session.
        _ = try await container.service(ServiceKey<Made>.made("feed"))
        try await snapshotReader.wait(until: 2)
        _ = try await container.reset(invalidating: ["feed"])
        try await snapshotReader.wait(until: 3)
        #expect(observed.generation == nil, "the reset retired the snapshot")
        _ = try await container.start()
        try await snapshotReader.wait(until: 4)
        #expect(observed.generation == 2)
        #expect(sessionReader.count == 1, "the reset and the snapshots that kept the session told its reader nothing")

        _ = try await container.reset(invalidating: ["session"])
        try await sessionReader.wait(until: 2)
        #expect(observed[session] == nil)
        _ = try await container.start()
        try await sessionReader.wait(until: 3)
        try await snapshotReader.wait(until: 6)
        #expect(observed[session]?.generation == 3)
        #expect(sessionReader.count == 3, "exactly once for the reset and once for the snapshot that changed it")
        #expect(sessionReader.toldOnMainActor == 3 && snapshotReader.toldOnMainActor == 6, "told on the main actor")
        _ = try await container.shutdown()
    }

    @Test("a reset: what it retires reads nil at once, its readers told once; what it keeps stays, readers untold")
    func resetRetiresAtOnce() async throws {
        let container = try ServiceContainer([
            countedSpec("configuration", log: OrderLog()),
            countedSpec("session", dependsOn: ["configuration"], log: OrderLog()),
        ])
        let observed = ObservedServices(container)
        let configuration = ServiceKey<Made>.made("configuration")
        let session = ServiceKey<Made>.made("session")
        let configurationReader = ChangeCounter { _ = observed[configuration] }
        let sessionReader = ChangeCounter { _ = observed[session] }
        let snapshotReader = ChangeCounter { _ = observed.snapshot }
        _ = try await container.start()
        try await sessionReader.wait(until: 1)
        try await configurationReader.wait(until: 1)
        try await snapshotReader.wait(until: 1)
        let kept = try #require(observed[configuration])

        _ = try await container.reset(invalidating: ["session"])
        try await sessionReader.wait(until: 2)
        try await snapshotReader.wait(until: 2)
        #expect(observed[session] == nil, "retired by the reset: not available until the next snapshot")
        #expect(observed.snapshot == nil && observed.generation == nil)
        #expect(observed[configuration] === kept, "carried into generation 2: the same value")
        #expect(configurationReader.toldOnMainActor == 1, "the reset kept the configuration: its reader was not told")
        #expect(sessionReader.toldOnMainActor == 2, "the session's reader was told once")

        _ = try await container.start()
        try await sessionReader.wait(until: 3)
        try await snapshotReader.wait(until: 3)
        #expect(observed[session]?.generation == 2 && observed.generation == 2)
        #expect(observed[configuration] === kept)
        #expect(configurationReader.toldOnMainActor == 1 && sessionReader.toldOnMainActor == 3)
        _ = try await container.shutdown()
    }

    @Test("a reload: a changed service reads nil at once and its reader is told; a carried one stays, untold")
    func reloadRetiresAtOnce() async throws {
        func graph(feedVersion: Int) throws -> ServiceGraph {
            func spec(_ name: String, _ dependsOn: [String], version: Int = 1) -> ServiceSpec {
                ServiceSpec(.made(name), dependsOn: dependsOn, options: ServiceOptions(["version": .int(version)])) {
                    context in Made(name: name, generation: context.generation)
                }
            }
            return try ServiceGraph([spec("session", []), spec("feed", ["session"], version: feedVersion)])
        }
        let container = ServiceContainer(graph: try graph(feedVersion: 1))
        let observed = ObservedServices(container)
        let session = ServiceKey<Made>.made("session")
        let feed = ServiceKey<Made>.made("feed")
        let sessionReader = ChangeCounter { _ = observed[session] }
        let feedReader = ChangeCounter { _ = observed[feed] }
        _ = try await container.start()
        try await sessionReader.wait(until: 1)
        try await feedReader.wait(until: 1)
        let kept = try #require(observed[session])

        _ = try await container.reload(try graph(feedVersion: 2))
        try await feedReader.wait(until: 2)
        #expect(observed[feed] == nil && observed.generation == nil, "the changed feed is retired at once")
        #expect(observed[session] === kept && sessionReader.toldOnMainActor == 1, "the session was carried over")

        _ = try await container.start()
        try await feedReader.wait(until: 3)
        #expect(observed[feed]?.generation == 2 && observed[session] === kept)
        #expect(sessionReader.toldOnMainActor == 1 && feedReader.toldOnMainActor == 3)
        _ = try await container.shutdown()
    }

    @Test("a reset never shows a value no snapshot published (built by a build the reset cancelled)")
    func resetShowsOnlyWhatWasShown() async throws {
        let gate = Gate()
        let container = try ServiceContainer([
            countedSpec("configuration", log: OrderLog()),
            countedSpec("session", dependsOn: ["configuration"], log: OrderLog()),
            // Generation 2's build waits here (cancelled by the reset), after the session was built.
            countedSpec("slow", dependsOn: ["session"], log: OrderLog()) { context in
                if context.generation == 2 { try await gate.cancellableWait() }
            },
        ])
        let feed = container.core.feeds.snapshots
        let observed = ObservedServices(container)
        let session = ServiceKey<Made>.made("session")
        let sessionReader = ChangeCounter { _ = observed[session] }
        _ = try await container.start()
        try await sessionReader.wait(until: 1)
        _ = try await container.reset(invalidating: ["session"])
        try await sessionReader.wait(until: 2)

        let starting = Task { try await container.start() }
        try await withTimeout(.seconds(30), "generation 2's session") {
            while container.core.serviceState(named: "session") != .built { await Task.yield() }
        }
        _ = try await container.reset(invalidating: ["slow"])
        // The view took the reset once it waits again with nothing pending.
        try await withTimeout(.seconds(30), "the view to take the reset") { @MainActor in
            while feed.waitingCalls == 0 || feed.hasPending { await Task.yield() }
        }
        #expect(observed[session] == nil, "generation 2's session was carried over, but never shown")
        #expect(sessionReader.toldOnMainActor == 2)
        gate.open()
        _ = try? await withTimeout(.seconds(30), "the superseded start()") { try await starting.value }

        _ = try await container.start()
        try await sessionReader.wait(until: 3)
        #expect(observed[session]?.generation == 2, "shown once published")
        _ = try await container.shutdown()
    }

    @Test("a scope instance's view follows the instance; stop() ends the following")
    func scopeInstanceAndStop() async throws {
        let (container, instance) = try pushInstance()
        let observed = ObservedServices(instance)
        let reader = ChangeCounter { _ = observed[ServiceKey<Int>("detail")] }
        _ = try await instance.start()
        try await reader.wait(until: 1)
        #expect(observed[ServiceKey<Int>("detail")] == 2)
        observed.stop()
        _ = try await instance.close()
        #expect(observed[ServiceKey<Int>("detail")] == 2, "stopped: the last snapshot stays")
        withExtendedLifetime(container) {}
    }
}
