import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// A build cancelled while its main-actor node waits for a busy main actor (here a job blocks
/// it; in an app, a main thread that waits for the shutdown): the caller's cancellation, a reset
/// and a shutdown each end the node at once, cancelled before it started, without waiting for
/// the main actor (Launch tiers and the main actor).
@Suite("Launch tiers: a queued main-actor node and a busy main actor")
struct MainActorHeldTests {
    @Test(
        "a main-actor node waiting for a held main actor: cancel, reset and shutdown do not wait for it", .serialized,
        arguments: 0..<3)
    func mainActorHeld(op: Int) async throws {
        let runs = Counter()
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("pool")) { _ in 1 },
            ServiceSpec(mainActor: ServiceKey<Int>("router"), dependsOn: ["pool"]) { c in
                runs.increment()
                return try c[ServiceKey<Int>("pool")] + 1
            },
        ])
        let release = BlockingGate()
        let holding = Gate()
        let holder = Task { @MainActor in
            holding.open()
            try? release.wait(timeout: .seconds(30), "the test to release the main actor")
        }
        try await holding.wait(timeout: .seconds(30), "the main actor to be held")
        let start = Task.detached { try await container.start() }
        // Let the build reach its main-actor hop (pool is quick).
        try await withTimeout(.seconds(30), "pool to be built") {
            while container.status.services.first(where: { $0.name == "pool" })?.state != .built { await Task.yield() }
        }
        do {
            try await withTimeout(.seconds(30), "op \(op) while the main actor is held") {
                switch op {
                case 0:
                    start.cancel()
                    _ = await start.result
                case 1: _ = try await container.reset()
                default: _ = try await container.shutdown()
                }
            }
        } catch {
            release.open()
            throw error
        }
        release.open()
        _ = await holder.value
        _ = try await withTimeout(.seconds(30), "start") { await start.result }
        _ = try? await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }
}
