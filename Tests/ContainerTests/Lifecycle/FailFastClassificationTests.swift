import ContainerTesting
import Testing

@testable import Container

/// ContainerError.failure: "For `.buildFailed`: transient (a later request for the same services
/// retries) or permanent (sticky until `reset()`), as the failed services this caller needs
/// classify it: an optional service's failure, or that of a service another request of the same
/// build needed, does not change it."
/// With fail-fast, the service this caller needs did not fail: it was cancelled because the
/// service another request needed failed permanently. Its caller must not be told `permanent`
/// (nothing it needs is sticky: the next request for it builds it).
@Suite("Lifecycle: fail-fast and the per-request failure classification")
struct FailFastClassificationTests {
    @Test("a request whose service fail-fast cancelled is not told permanent for another request's failure")
    func cancelledByFailFastIsNotPermanent() async throws {
        let log = OrderLog()
        let brokenGate = Gate()
        let slowGate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("slow", log: log, defaultFailure: .transient, start: .lazy) { _ in
                    try await slowGate.cancellableWait()  // honours the fail-fast cancellation
                },
                countedSpec("broken", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                    try await brokenGate.wait(timeout: .seconds(30))
                    throw TestError("the key is revoked")
                },
            ], policy: .failFast, trace: [trace])
        let slow = Task { try await container.start(needs: [ServiceKey<Made>.made("slow").erased], as: "slow") }
        let broken = Task { try await container.start(needs: [ServiceKey<Made>.made("broken").erased], as: "broken") }
        try await trace.wait(for: "both nodes to start in one build", timeout: .seconds(30)) { events in
            let started = Set(
                events.compactMap { event -> String? in
                    event.kind.name == "node.started" ? event.kind.node : nil
                })
            return started.isSuperset(of: ["slow", "broken"])
        }
        brokenGate.open()
        let slowError = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the slow request") { try await slow.value }
        }
        _ = await broken.result
        #expect(trace.count("build.started") == 1)
        #expect(
            slowError?.failure != .permanent,
            "slow was cancelled, not failed, yet its caller is told: \(String(describing: slowError))")
        // Nothing slow needs is sticky: the next request for it builds it.
        slowGate.open()
        let services = try await withTimeout(.seconds(60), "the retry") {
            try await container.start(needs: [ServiceKey<Made>.made("slow").erased], as: "retry")
        }
        let name = try services[ServiceKey<Made>.made("slow")].name
        #expect(name == "slow")
        _ = try await container.shutdown()
    }
}
