import ContainerTesting
import Testing

@testable import Container

@Suite("Per-node timeout, retry and classification (Coordinator rules)")
struct TimeoutRetryTests {
    @Test("A node exceeding its timeout fails transiently and its work is cancelled")
    func timeoutIsTransient() async throws {
        let sawCancellation = Counter()
        let gate = Gate()  // never opened: the provider hangs until cancelled
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("hangs"), timeout: .milliseconds(20)) { _ in
                do { try await gate.cancellableWait() } catch {
                    sawCancellation.increment()
                    throw error
                }
                return 1
            }
        ])
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(60), "the timed-out build") { try await container.start() }
        }
        guard case .failed(let failure)? = error?.report?.outcome(of: "hangs") else {
            Issue.record("hangs should have failed")
            return
        }
        #expect(failure.kind == .transient)
        #expect(failure.error is ServiceSpec.TimeoutError)
        #expect(failure.message == "service 'hangs' did not finish within its timeout of 20ms")
        #expect(sawCancellation.count == 1)
        #expect(error?.failure == .transient)
    }

    @Test("A value that arrives despite the timeout's cancellation still counts (Coordinator rules)")
    func commitAfterCancellation() async throws {
        let gate = Gate()
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<String>("commits"), timeout: .milliseconds(10)) { _ in
                try? await gate.cancellableWait()  // ignores the cancellation: the effect is already committed
                return "committed"
            }
        ])
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        #expect(try services[ServiceKey<String>("commits")] == "committed")
    }

    @Test("Transient errors are retried within the build up to maxAttempts")
    func retriesTransient() async throws {
        let calls = Counter()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("flaky"), retry: RetryPolicy(maxAttempts: 3)) { context in
                    let call = calls.increment()
                    #expect(context.run == call)
                    if call < 3 { throw Classified(failureKind: .transient) }
                    return call
                }
            ], trace: [watcher])
        let services = try await container.start()
        #expect(try services[ServiceKey<Int>("flaky")] == 3)
        #expect(services.report.node("flaky")?.runs == 3)
        let retries = watcher.events.compactMap { event -> Int? in
            if case .nodeRetrying("flaky", let retry, _) = event.kind { return retry }
            return nil
        }
        #expect(retries == [1, 2])
        #expect(watcher.count("node.started") == 1)
    }

    @Test("runInGeneration counts a node's provider runs across retries and attempts; a reset starts again")
    func runInGeneration() async throws {
        let seen = OrderLog()
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("flaky"), retry: RetryPolicy(maxAttempts: 2)) { context in
                seen.append("g\(context.generation) a\(context.attempt) r\(context.run) n\(context.runInGeneration)")
                if context.generation == 1 && context.runInGeneration < 3 { throw Classified(failureKind: .transient) }
                return context.runInGeneration
            }
        ])
        await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(try await container.start()[ServiceKey<Int>("flaky")] == 3)
        try await container.reset()
        #expect(try await container.start()[ServiceKey<Int>("flaky")] == 1)
        #expect(seen.entries == ["g1 a1 r1 n1", "g1 a1 r2 n2", "g1 a2 r1 n3", "g2 a1 r1 n1"])
    }

    @Test("Retries stop at maxAttempts; permanent errors are never retried")
    func retryLimits() async throws {
        let transientCalls = Counter()
        let permanentCalls = Counter()
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("alwaysTransient"), retry: RetryPolicy(maxAttempts: 2)) { _ in
                transientCalls.increment()
                throw Classified(failureKind: .transient)
            },
            ServiceSpec(ServiceKey<Int>("permanent"), retry: RetryPolicy(maxAttempts: 5)) { _ in
                permanentCalls.increment()
                throw Classified(failureKind: .permanent)
            },
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(transientCalls.count == 2)
        #expect(permanentCalls.count == 1)
        #expect(error?.failure == .permanent)
    }

    @Test("RetryPolicy.Backoff delays grow by the multiplier and are capped")
    func backoff() {
        let policy = RetryPolicy(
            maxAttempts: 6, initialDelay: .milliseconds(10), multiplier: 3, maxDelay: .milliseconds(200))
        #expect(
            (1...5).map { policy.delay(beforeRetry: $0) }
                == [.milliseconds(10), .milliseconds(30), .milliseconds(90), .milliseconds(200), .milliseconds(200)])
        #expect(RetryPolicy(maxAttempts: 0).maxAttempts == 1)
    }

    struct ProviderSays: ServiceProvider {
        let id = "says"
        let kind: FailureKind
        let error: any Error & Sendable
        func make(_ context: ProviderContext) async throws -> Int { throw error }
        func classify(_ error: any Error) -> FailureKind? { kind }
    }

    struct ProviderSilent: ServiceProvider {
        let id = "silent"
        func make(_ context: ProviderContext) async throws -> Int { throw TestError() }
    }

    private func failure(
        _ spec: ServiceSpec, policy: BuildPolicy = .default
    ) async throws -> FailureKind? {
        let container = try ServiceContainer([spec], policy: policy)
        do {
            _ = try await container.start()
            return nil
        } catch let error as ContainerError {
            return error.failure
        }
    }

    @Test("Classification order: the error, then the node's config, then the provider, then the container")
    func classificationOrder() async throws {
        // 1. The error says (beats config and provider).
        #expect(
            try await failure(
                ServiceSpec(
                    name: "n", provider: ProviderSays(kind: .transient, error: Classified(failureKind: .permanent)),
                    defaultFailure: .transient)) == .permanent)
        // 2. The node's config says (beats the provider).
        #expect(
            try await failure(
                ServiceSpec(
                    name: "n", provider: ProviderSays(kind: .transient, error: TestError()), defaultFailure: .permanent)
            )
                == .permanent)
        // 3. The provider says (beats the container).
        #expect(
            try await failure(
                ServiceSpec(
                    name: "n", provider: ProviderSays(kind: .permanent, error: TestError()))) == .permanent)
        // 4. The container's default: unclassified errors are transient.
        #expect(try await failure(ServiceSpec(name: "n", provider: ProviderSilent())) == .transient)
        // ... unless the container's classifier says otherwise.
        #expect(
            try await failure(
                ServiceSpec(name: "n", provider: ProviderSilent()),
                policy: BuildPolicy(classifier: .permanentUnlessClassified)) == .permanent)
    }

    @Test("Cancellation is never a failure")
    func cancellationIsNotFailure() async throws {
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("cancels")) { _ in throw CancellationError() }
        ])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(error?.report?.outcome(of: "cancels") == .cancelled(.whileRunning))
        #expect(error?.report?.failedNodes == [])
        #expect(error?.failure == .transient)
    }

    @Test("Secret option values never appear in error messages or the trace")
    func secretsAreRedacted() async throws {
        let watcher = TraceWatcher()
        let options = ServiceOptions(
            ["token": .string("s3cr3t-t0ken"), "region": .string("eu")], secretKeys: ["token"])
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("api"), options: options) { context in
                    throw TestError("login with \(try context.options.string("token")) refused")
                }
            ], trace: [watcher])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        let message = try #require(error?.message)
        #expect(!message.contains("s3cr3t-t0ken"))
        #expect(message.contains("login with <redacted> refused"))
        #expect(!watcher.events.contains { "\($0.kind)".contains("s3cr3t") })
        #expect(options.description == "[region: \"eu\", token: <redacted>]")
    }
}
