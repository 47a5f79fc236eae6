import ContainerTesting
import Testing

@testable import Container

/// AttemptBudget.md, `BuildPolicy/maxAttempts`: "Otherwise a generation has a build per request
/// that lacked something (<doc:DemandDrivenStartUp>), and the budget counts each service's failed
/// attempts". CoordinatorRules.md: "`skipped(because:)` (an upstream node failed; it never ran)
/// ... "Did not run" and "ran and failed" are never the same."
///
/// In a graph with start policies, a service skipped because its dependency failed has not
/// failed; yet its first real attempt, when it fails transiently, is refused as `attemptsExhausted`
/// with `maxAttempts: 2`.
@Suite("Attempt budget: a skipped service's budget", .serialized)
struct SkippedAttemptBudgetTests {
    @Test("a service skipped once, then failing once, has not exhausted maxAttempts: 2")
    func skippedIsNotAFailedAttempt() async throws {
        let log = OrderLog()
        let aCalls = Counter()
        let container = try ServiceContainer(
            [
                countedSpec("a", log: log, defaultFailure: .transient, start: .lazy) { _ in
                    if aCalls.increment() == 1 { throw TestError("a down") }
                },
                countedSpec("b", dependsOn: ["a"], log: log, defaultFailure: .transient, start: .lazy) { _ in
                    throw TestError("b down")
                },
            ], policy: BuildPolicy(maxAttempts: 2))
        let needsB = [ServiceKey<Made>.made("b").erased]
        // Attempt 1: a fails, b is skipped (never runs).
        let first = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "first") { try await container.start(needs: needsB) }
        }
        #expect(first?.code == .buildFailed)
        #expect(log.count(of: "a") == 1 && log.count(of: "b") == 0)
        // Attempt 2: a succeeds, b runs for the first time and fails transiently: its first failed attempt of 2.
        let second = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "second") { try await container.start(needs: needsB) }
        }
        #expect(log.count(of: "b") == 1)
        #expect(second?.code == .buildFailed, "got \(String(describing: second?.code)): \(second?.message ?? "")")
        #expect(second?.failure == .transient)
        // b's second (last allowed) attempt must still be made.
        _ = try? await withTimeout(.seconds(60), "third") { try await container.start(needs: needsB) }
        #expect(log.count(of: "b") == 2, "b was tried \(log.count(of: "b")) times; maxAttempts allows 2")
    }
}
