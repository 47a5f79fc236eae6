import ContainerTesting
import Testing

@testable import Container

/// AttemptBudget.md, `BuildPolicy/maxAttempts`: "When a service's last allowed attempt fails
/// transiently, the requests that need it fail with ``ContainerError`` code `attemptsExhausted`
/// (its ``ContainerError/report`` is the last attempt's), sticky like a permanent failure".
///
/// A request answered early (its node ended while the rest of the build goes on) gets
/// `buildFailed` / transient instead, with advice that "the next request that needs it tries
/// again" — which the next request then refuses with `attemptsExhausted`.
@Suite("Attempt budget: an early answer after the last allowed attempt", .serialized)
struct EarlyAnswerExhaustedTests {
    @Test("a request answered early when its service's last allowed attempt fails gets attemptsExhausted")
    func earlyAnswerAfterLastAttempt() async throws {
        let log = OrderLog()
        let gateA = Gate()
        let gateB = Gate()
        let container = try ServiceContainer(
            [
                countedSpec("a", log: log, defaultFailure: .transient) { _ in
                    try await gateA.wait(timeout: .seconds(60))
                    throw TestError("down")
                },
                countedSpec("b", log: log) { _ in try await gateB.wait(timeout: .seconds(60)) },
                countedSpec("l", log: log, start: .lazy),  // declares a start policy: requests by closure
            ], policy: BuildPolicy(maxAttempts: 1))
        defer { gateA.open(); gateB.open() }
        let launch = Task { try await container.start() }
        try await withTimeout(.seconds(60), "start() waits") {
            while container.status.waitingCallers < 1 { await Task.yield() }
        }
        let needsA = Task { try await container.start(needs: [ServiceKey<Made>.made("a").erased]) }
        try await withTimeout(.seconds(60), "start(needs: a) joins") {
            while container.status.waitingCallers < 2 { await Task.yield() }
        }
        gateA.open()  // a's only allowed attempt fails transiently; b still runs
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "start(needs: a)") { try await needsA.value }
        }
        #expect(error?.code == .attemptsExhausted, "got \(String(describing: error?.code)): \(error?.message ?? "")")
        gateB.open()
        _ = try? await withTimeout(.seconds(60), "start()") { try await launch.value }
        #expect(log.count(of: "a") == 1)
    }
}
