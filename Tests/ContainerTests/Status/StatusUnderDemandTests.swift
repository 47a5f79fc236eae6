import ContainerTesting
import Testing

@testable import Container

/// `status.state` is the state as `start()` sees it: a lazy service's failure does not make it say
/// that `start()` would fail or wait, and `ready` means a snapshot is published.
@Suite("Status: lazy failures and carried-over values", .timeLimit(.minutes(2)))
struct StatusUnderDemandTests {
    @Test("a lazy service failed permanently, start() not called yet: status is idle, start() builds")
    func lazyPermanentFailureBeforeStart() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("e", log: log),
            countedSpec("x", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("x down") },
        ])
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "x") { try await container.service(ServiceKey<Made>.made("x")) }
        }
        let status = container.status
        #expect(status.state == .idle, "lastFailure: \(status.lastFailure?.description ?? "nil")")
        #expect(status.service("x")?.state == .failed)
        let services = try await withTimeout(.seconds(30), "start") { try await container.start() }
        #expect(services.contains("e") && log.count(of: "e") == 1)
    }

    @Test("a lazy service failed transiently under retryAfter, start() not called yet: status is idle")
    func lazyTransientFailureBeforeStart() async throws {
        let log = OrderLog()
        let container = try ServiceContainer(
            [
                countedSpec("e", log: log),
                countedSpec("x", log: log, start: .lazy) { _ in throw TestError("x down") },
            ], policy: BuildPolicy(retryAfter: RetryPolicy.Backoff(initialDelay: .seconds(3600))))
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "x") { try await container.service(ServiceKey<Made>.made("x")) }
        }
        let status = container.status
        #expect(
            status.state == .idle && status.nextAttemptAt == nil,
            "\(status.state), \(String(describing: status.nextAttemptAt))")
        _ = try await withTimeout(.seconds(30), "start") { try await container.start() }
        #expect(container.status.state == .ready)
    }

    @Test("reset(invalidating:) of a lazy service only: idle until start() publishes the carried values")
    func readyOnlyWithASnapshot() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("e", log: log),
            countedSpec("x", log: log, start: .lazy),
        ])
        _ = try await withTimeout(.seconds(30), "start") { try await container.start() }
        _ = try await withTimeout(.seconds(30), "x") { try await container.service(ServiceKey<Made>.made("x")) }
        _ = try await withTimeout(.seconds(30), "reset") { try await container.reset(invalidating: ["x"]) }
        #expect(container.current == nil)
        #expect(container.status.state == .idle)
        let services = try await withTimeout(.seconds(30), "start again") { try await container.start() }
        #expect(services.contains("e") && log.count(of: "e") == 1, "e carried over, not built again")
        #expect(container.status.state == .ready && container.current != nil)
    }
}
