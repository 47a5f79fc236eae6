import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// The `simulated` provider's outcome sequence (the ConfigFormat article, "Standard providers").
struct SimulatedProviderTests {
    static func container(
        _ services: String, trace: [any TraceSink] = []
    ) throws -> ServiceContainer {
        let config = try ConfigLoader.load(text: "{ \"version\": 1, \"services\": [\(services)] }", file: "sim.json")
        return ServiceContainer(graph: config.graph, policy: config.policy, trace: trace)
    }

    static func failureMessage(of node: String, in error: any Error) -> String? {
        guard let error = error as? ContainerError, case .failed(let failure)? = error.report?.outcome(of: node) else {
            return nil
        }
        return failure.message
    }

    /// `start()`, expecting a failure; returns it.
    static func failingStart(_ container: ServiceContainer, sourceLocation: SourceLocation = #_sourceLocation)
        async -> ContainerError?
    {
        do {
            _ = try await withTimeout { try await container.start() }
            Issue.record("start() should have failed", sourceLocation: sourceLocation)
            return nil
        } catch let error as ContainerError {
            return error
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test func eachRunUsesTheNextOutcomeAcrossAttemptsAndAGenerationStartsAgain() async throws {
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["transient", "transient", "ok"] } }
            """)
        let first = await Self.failingStart(container)
        #expect(first?.failure == .transient)
        #expect(first.flatMap { Self.failureMessage(of: "a", in: $0) } == "simulated transient failure of 'a' (run 1)")
        let second = await Self.failingStart(container)
        #expect(second.flatMap { Self.failureMessage(of: "a", in: $0) } == "simulated transient failure of 'a' (run 2)")
        let services = try await withTimeout { try await container.start() }
        #expect(try services[ServiceKey<SimulatedValue>("a")] == SimulatedValue(node: "a", run: 3, generation: 1))
        #expect(services.report.attempt == 3)

        // A new generation starts again at the first outcome.
        try await withTimeout { try await container.reset() }
        let afterReset = await Self.failingStart(container)
        #expect(
            afterReset.flatMap { Self.failureMessage(of: "a", in: $0) } == "simulated transient failure of 'a' (run 1)")
        try await container.shutdown()
    }

    @Test func containersOfOneGraphNeverShareRunCounts() async throws {
        let config = try ConfigLoader.load(
            text: """
                { "version": 1, "services": [
                  { "name": "a", "provider": "simulated", "options": { "outcomes": ["transient", "ok"] } } ] }
                """, file: "sim.json")
        let first = ServiceContainer(graph: config.graph)
        let second = ServiceContainer(graph: config.graph)
        // Interleaved: each container's first run fails and its second succeeds, whatever the other did.
        #expect(await Self.failingStart(first) != nil)
        #expect(await Self.failingStart(second) != nil)
        let one = try await withTimeout { try await first.start() }
        let two = try await withTimeout { try await second.start() }
        #expect(try one[ServiceKey<SimulatedValue>("a")].run == 2)
        #expect(try two[ServiceKey<SimulatedValue>("a")].run == 2)
    }

    @Test func theLastOutcomeRepeatsThroughRetriesAndAttempts() async throws {
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["transient"] }, "retry": 3 }
            """)
        let first = await Self.failingStart(container)
        #expect(first?.report?.node("a")?.runs == 3)
        #expect(first.flatMap { Self.failureMessage(of: "a", in: $0) } == "simulated transient failure of 'a' (run 3)")
        let second = await Self.failingStart(container)
        #expect(second.flatMap { Self.failureMessage(of: "a", in: $0) } == "simulated transient failure of 'a' (run 6)")
        try await container.shutdown()
    }

    @Test func retriesInsideOneBuildConsumeOutcomes() async throws {
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["transient", "ok"] },
              "retry": { "maxAttempts": 2 } }
            """)
        let services = try await withTimeout { try await container.start() }
        #expect(try services[ServiceKey<SimulatedValue>("a")].run == 2)
        #expect(services.report.attempt == 1)
        #expect(services.report.node("a")?.runs == 2)
        try await container.shutdown()
    }

    @Test func skippedNodesConsumeNoOutcome() async throws {
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["transient", "ok"] } },
            { "name": "b", "provider": "simulated", "dependsOn": ["a"], "options": { "outcomes": ["transient", "ok"] } }
            """)
        // Attempt 1: a fails, b is skipped (it never ran).
        let first = await Self.failingStart(container)
        #expect(first?.report?.outcome(of: "b") == .skipped(because: ["a"]))
        // Attempt 2: a succeeds; b runs for the first time, so it uses its first outcome.
        let second = await Self.failingStart(container)
        #expect(second?.report?.outcome(of: "a")?.name == "succeeded")
        #expect(second.flatMap { Self.failureMessage(of: "b", in: $0) } == "simulated transient failure of 'b' (run 1)")
        // Attempt 3: b's second run uses its second outcome.
        let services = try await withTimeout { try await container.start() }
        #expect(try services[ServiceKey<SimulatedValue>("a")].run == 2)
        #expect(try services[ServiceKey<SimulatedValue>("b")].run == 2)
        #expect(services.report.outcome(of: "a") == .reused)
        try await container.shutdown()
    }

    @Test func permanentOutcomeIsAStickyPermanentFailure() async throws {
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["permanent", "ok"] } }
            """)
        let first = await Self.failingStart(container)
        #expect(first?.failure == .permanent)
        let second = await Self.failingStart(container)
        #expect(second?.failure == .permanent)
        #expect(second?.description == first?.description)
        try await container.shutdown()
    }

    @Test func hangRunsUntilItsTimeoutCancelsIt() async throws {
        let recorder = TraceRecorder()
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["hang", "ok"] },
              "timeoutMs": 50, "retry": 2 }
            """, trace: [recorder])
        let services = try await withTimeout { try await container.start() }
        #expect(try services[ServiceKey<SimulatedValue>("a")].run == 2)
        #expect(services.report.node("a")?.runs == 2)
        #expect(recorder.events.contains { $0.kind == .nodeRetrying(node: "a", retry: 1, delay: .zero) })
        try await container.shutdown()
    }

    @Test func hangRunsUntilAResetCancelsIt() async throws {
        let watcher = TraceWatcher()
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "outcomes": ["hang", "ok"] } }
            """, trace: [watcher])
        let caller = Task { try await container.start() }
        try await watcher.wait(for: "a to start") { $0.contains { $0.kind.starts("a") } }
        let report = try await withTimeout { try await container.reset() }
        #expect(report.to == 2)
        await #expect {
            try await withTimeout { try await caller.value }
        } throws: { ($0 as? ContainerError)?.code == .superseded }
        #expect(watcher.events.contains { $0.kind == .nodeCancelled(node: "a", phase: .whileRunning) })
        // The new generation starts again at the first outcome: it hangs again, until shutdown.
        let again = Task { try await container.start() }
        try await watcher.wait(for: "a to start in generation 2") { events in
            events.contains { $0.generation == 2 && $0.kind.starts("a") }
        }
        try await withTimeout { try await container.shutdown() }
        await #expect {
            try await withTimeout { try await again.value }
        } throws: { ($0 as? ContainerError)?.code == .shutDown }
    }

    @Test func durationDelaysEachRun() async throws {
        let container = try Self.container(
            """
            { "name": "a", "provider": "simulated", "options": { "durationMs": 30 } }
            """)
        let services = try await withTimeout { try await container.start() }
        guard case .succeeded(let duration)? = services.report.outcome(of: "a") else {
            Issue.record("a should succeed")
            return
        }
        #expect(duration >= .milliseconds(30))
        try await container.shutdown()
    }

    @Test func optionsAreValidatedAtLoadTime() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "a", "provider": "simulated", "options": { "outcomes": ["ok", "hng"] } },
                  { "name": "b", "provider": "simulated", "options": { "outcomes": [] } },
                  { "name": "c", "provider": "simulated", "options": { "durationMs": "slow" } }
                ] }
                """))
        #expect(error.codes == [.invalidOptions, .invalidOptions, .invalidOptions])
        #expect(
            error.description == """
                test.json:2:75: services[0].options.outcomes[1]: service 'a' (provider 'simulated'): option \
                'outcomes[1]': unknown outcome 'hng'; did you mean 'hang'? (known outcomes: ok, transient, permanent, hang)
                test.json:3:68: services[1].options.outcomes: service 'b' (provider 'simulated'): option 'outcomes': \
                must list at least one outcome (ok, transient, permanent, hang)
                test.json:4:70: services[2].options.durationMs: service 'c' (provider 'simulated'): option \
                'durationMs' must be an integer, found a string
                """)
    }

    @Test func unknownOptionsAreTyposNotIgnored() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "a", "provider": "simulated", "options": { "durationMS": 500 } },
                  { "name": "b", "provider": "simulated", "options": { "token": "x", "description": "ok" },
                    "secretOptions": ["token"] }
                ] }
                """))
        #expect(error.codes == [.invalidOptions])
        #expect(
            error.description.contains(
                "option 'durationMS': unknown option; did you mean 'durationMs'? (simulated reads durationMs, "
                    + "outcomes, description, and the options listed in secretOptions)"
            ))
    }

    @Test func everyUnknownOptionIsNamedInOneError() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "a", "provider": "simulated", "options": { "zzz": 1, "baseURL": "u", "accessGroup": "g" } }
                ] }
                """))
        #expect(error.codes == [.invalidOptions])
        #expect(
            error.description.contains(
                "option 'accessGroup': unknown option; so are 'baseURL', 'zzz' (simulated reads durationMs, outcomes,"))
    }

    @Test func aBlockingSynchronousRunStopsWhenItsBuildIsCancelled() async throws {
        let config = try ConfigLoader.load(
            text: """
                { "version": 1, "services": [
                  { "name": "slow", "provider": "simulatedNow", "options": { "durationMs": 3600000 } }
                ] }
                """, file: "slow.json")
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: config.graph, trace: [watcher])
        let caller = Task { try await container.start() }
        try await watcher.wait(for: "the hour-long node to start") { $0.contains { $0.kind.name == "node.started" } }
        // The shutdown cancels the build: the node stops blocking its thread (it would block an hour).
        try await withTimeout(.seconds(30), "the shutdown") { try await container.shutdown() }
        #expect(watcher.count("node.cancelled") == 1, "\(watcher.events.map(\.kind))")
        _ = await caller.result
    }

    @Test func secretTextPastItsLimitIsTheOnlyError() throws {
        let half = String(repeating: "k9_", count: ServiceGraph.maximumSecretBytes / 6)
        let service = { (name: String) in
            #"{ "name": "\#(name)", "provider": "simulated", "options": { "key": "\#(half)x" }, "secretOptions": ["key"] }"#
        }
        let text = """
            { "version": 1, "services": [ \(service("a")), \(service("b")), \(service("c")),
              { "name": "d", "provider": "nope" } ] }
            """
        let error = try #require(loadError(text))
        #expect(
            error.issues.count == 1,
            "the unknown provider is not reported: redacting it would cost what the limit avoids")
        #expect(error.issues.first?.location.keyPath == "services[2].secretOptions")
        #expect(error.description.contains("over the limit of 1048576 (1 MiB, ServiceGraph.maximumSecretBytes)"))
        #expect(!error.description.contains("k9_k9"))
        // Within the limit: loads.
        let two = """
            { "version": 1, "services": [ \(service("a")), \(service("b")) ] }
            """
        _ = try ConfigLoader.load(text: two, file: "two.json")
    }
}
