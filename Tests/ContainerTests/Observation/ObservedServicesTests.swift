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

    /// Waits until at least `count` changes were counted (failing the test after 30 s).
    func wait(until expected: Int) async throws {
        try await withTimeout(.seconds(30), "\(expected) changes") { @MainActor in
            while self.count < expected {
                await withCheckedContinuation { self.waiters.append($0) }
            }
        }
    }
}

@Suite("ObservedServices: an Observable view that follows the newest snapshot, per service")
@MainActor
struct ObservedServicesTests {
    @Test("a reader of one service is told once per snapshot that changes it, never for another service")
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
        _ = try await container.start()
        try await snapshotReader.wait(until: 3)
        #expect(observed.generation == 2)
        #expect(sessionReader.count == 1, "snapshots that kept the session told its reader nothing")

        _ = try await container.reset(invalidating: ["session"])
        _ = try await container.start()
        try await sessionReader.wait(until: 2)
        try await snapshotReader.wait(until: 4)
        #expect(observed[session]?.generation == 3)
        #expect(sessionReader.count == 2, "exactly once for the snapshot that changed it")
        #expect(sessionReader.toldOnMainActor == 2 && snapshotReader.toldOnMainActor == 4, "told on the main actor")
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
