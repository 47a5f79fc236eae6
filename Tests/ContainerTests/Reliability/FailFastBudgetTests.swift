import ContainerTesting
import Testing

@testable import Container

/// The attempt budget counts failed attempts: a service that fail-fast cancelled (it never
/// failed) is not blocked, nor refused with `attemptsExhausted`.
@Suite("Attempt budget: fail-fast cancellations")
struct FailFastBudgetTests {
    /// failFast + maxAttempts 2. Lazy `flaky` always fails transiently; lazy `other` is
    /// independent and would succeed, but is requested together with `flaky` twice, and failFast
    /// cancels it each time (it never fails). A third request for `other` alone should build it:
    /// the budget counts tries of a service, and a cancelled one is not a failed try.
    @Test("failFast cancellations do not use up an independent service's attempt budget")
    func failFastBudget() async throws {
        let otherRuns = Counter()
        let otherStarted = Gate()
        let never = Gate()
        let container = ServiceContainer(
            graph: try ServiceGraph([
                ServiceSpec(ServiceKey<Int>("base")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("flaky"), dependsOn: ["base"], start: .lazy) { _ in
                    try await otherStarted.wait(timeout: .seconds(30))
                    throw TestError("flaky")
                },
                ServiceSpec(ServiceKey<Int>("other"), dependsOn: ["base"], start: .lazy) { _ in
                    if otherRuns.increment() <= 2 {
                        otherStarted.open()
                        // Held until failFast cancels it.
                        try await never.cancellableWait()
                    }
                    return 2
                },
            ]), policy: BuildPolicy(failureMode: .failFast, maxAttempts: 2, retryAfter: .init(initialDelay: .zero)))
        _ = try await container.start()
        for attempt in 1...2 {
            let result = try await withTimeout(.seconds(30), "attempt \(attempt)") {
                try? await container.start(needs: [ServiceKey<Int>("flaky").erased, ServiceKey<Int>("other").erased])
            }
            #expect(result == nil, "attempt \(attempt) fails (flaky)")
        }
        let other = try await withTimeout(.seconds(30), "other alone") {
            do { return Result<Int, any Error>.success(try await container.service(ServiceKey<Int>("other"))) } catch {
                return .failure(error)
            }
        }
        switch other {
        case .success(let value): #expect(value == 2)
        case .failure(let error):
            Issue.record(
                "other never failed (it ran \(otherRuns.count) times, cancelled each time by failFast), yet: \(error)")
        }
        _ = try await container.shutdown()
    }
}
