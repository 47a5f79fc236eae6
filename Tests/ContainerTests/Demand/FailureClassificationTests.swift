import ContainerTesting
import Testing

@testable import Container

/// A caller's `ContainerError.failure` is how the failed services *it needs* classify: a
/// permanent failure of a service it does not need (an optional one, or one only another
/// request of the same build needed) leaves its transient failure transient.
@Suite("Failure classification per request (Demand-driven start-up)")
struct FailureClassificationTests {
    @Test(
        "two requests share a build: the one whose service failed transiently is told transient, and its retry succeeds"
    )
    func sharedBuildClassifiesPerRequest() async throws {
        let log = OrderLog()
        let gate = Gate()
        let runs = Locked(0)
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("flaky", log: log, defaultFailure: .transient, start: .lazy) { _ in
                    try await gate.wait(timeout: .seconds(30))
                    let run = runs.withLock { count in
                        count += 1
                        return count
                    }
                    if run == 1 { throw TestError("the backend is busy") }
                },
                countedSpec("broken", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                    try await gate.wait(timeout: .seconds(30))
                    throw TestError("the key is revoked")
                },
            ], trace: [trace])
        let flaky = Task { try await container.start(needs: [ServiceKey<Made>.made("flaky").erased], as: "flaky") }
        let broken = Task { try await container.start(needs: [ServiceKey<Made>.made("broken").erased], as: "broken") }
        // Both requests in the one build before either node ends.
        try await trace.wait(for: "both requests to join", timeout: .seconds(30)) { events in
            let callers = Set(events.compactMap { event -> String? in event.kind.caller })
            return callers.isSuperset(of: ["flaky", "broken"])
        }
        gate.open()
        let flakyError = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the flaky request") { try await flaky.value }
        }
        let brokenError = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the broken request") { try await broken.value }
        }
        #expect(flakyError?.failure == .transient, "\(String(describing: flakyError))")
        #expect(flakyError?.message.contains("failed (transient)") == true)
        #expect(brokenError?.failure == .permanent, "\(String(describing: brokenError))")
        let builds = trace.events.filter { $0.kind.name == "build.started" }.count
        // The transient failure is retried by the next request for it; the permanent one is not.
        let services = try await withTimeout(.seconds(60), "the retry") {
            try await container.start(needs: [ServiceKey<Made>.made("flaky").erased], as: "retry")
        }
        #expect(try services[ServiceKey<Made>.made("flaky")].name == "flaky")
        #expect(log.count(of: "flaky") == 2 && log.count(of: "broken") == 1)
        #expect(builds == 1)
        let again = await #expect(throws: ContainerError.self) {
            try await container.start(needs: [ServiceKey<Made>.made("broken").erased], as: "broken again")
        }
        #expect(again?.failure == .permanent)
        #expect(log.count(of: "broken") == 1)
    }

    @Test("an optional service's permanent failure leaves start()'s transient failure transient")
    func optionalPermanentFailureStaysOutOfTheClassification() async throws {
        let log = OrderLog()
        let runs = Locked(0)
        let container = try ServiceContainer(
            [
                countedSpec("session", log: log, defaultFailure: .transient) { _ in
                    let run = runs.withLock { count in
                        count += 1
                        return count
                    }
                    if run == 1 { throw TestError("the token endpoint timed out") }
                },
                optional(
                    countedSpec("analytics", log: log, defaultFailure: .permanent) { _ in
                        throw TestError("the SDK refused the key")
                    }),
            ], policy: BuildPolicy(maxAttempts: 3))
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "start()") { try await container.start() }
        }
        #expect(error?.failure == .transient, "\(String(describing: error))")
        #expect(container.status.state != .failed)
        let services = try await withTimeout(.seconds(60), "start() again") { try await container.start() }
        #expect(services.serviceNames == ["session"])
        #expect(log.count(of: "session") == 2 && log.count(of: "analytics") == 1)
    }
}
