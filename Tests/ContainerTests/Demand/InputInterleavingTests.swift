import ContainerTesting
import Synchronization
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let token = ServiceKey("token")
}

private let registration = ServiceKey<Made>.made("registration")

private func started(_ name: String, count: Int = 1) -> @Sendable ([TraceEvent]) -> Bool {
    { events in events.count { $0.kind.name == "node.started" && $0.kind.node == name } >= count }
}

/// `token` (an input) and `registration` (lazy), which logs the token it read, then waits for `gate`.
private func inputSpecs(tokens: OrderLog, log: OrderLog, gate: Gate? = nil, start: StartPolicy = .lazy)
    -> [ServiceSpec]
{
    [
        .input(.token),
        countedSpec("registration", dependsOn: ["token"], log: log, start: start) { context in
            tokens.append(try context[.token])
            if let gate { try await gate.wait(timeout: .seconds(30), "registration's gate") }
        },
    ]
}

@Suite("Inputs under interleavings: supplies racing builds, reloads, shutdowns", .timeLimit(.minutes(2)))
struct InputInterleavingTests {
    // MARK: Interleavings that once went wrong

    @Test("BUG: a second value supplied while the input node is settling its first is lost from the snapshot")
    func secondSupplyWhileSettling() async throws {
        let tokens = OrderLog()
        let trace = TraceWatcher()
        let container = try ServiceContainer(inputSpecs(tokens: tokens, log: OrderLog()), trace: [trace])
        let request = Task { try await container.service(registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
        try await container.supply(.token, "token-1")
        let report = try await container.supply(.token, "token-2")
        _ = try await withTimeout(.seconds(30), "first request") { await request.result }
        _ = try await withTimeout(.seconds(30), "a later request") { try await container.service(registration) }
        #expect(try container.resolve(.token) == "token-2", "report: \(String(describing: report))")
        #expect(tokens.entries.last == "token-2", "registration read \(tokens.entries)")
    }

    @Test("BUG: two concurrent supplies while the input waits: the snapshot ends consistent with the store")
    func concurrentSupplies() async throws {
        var inconsistent = 0
        for _ in 0..<20 {
            let tokens = OrderLog()
            let trace = TraceWatcher()
            let container = try ServiceContainer(inputSpecs(tokens: tokens, log: OrderLog()), trace: [trace])
            let request = Task { try await container.service(registration) }
            try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
            async let a: ServiceContainer.ResetReport? = container.supply(.token, "a")
            async let b: ServiceContainer.ResetReport? = container.supply(.token, "b")
            _ = try await (a, b)
            _ = try await withTimeout(.seconds(30), "first request") { await request.result }
            _ = try await withTimeout(.seconds(30), "later request") { try await container.service(registration) }
            let published = try container.resolve(.token)
            // A fresh build reads what the store holds.
            _ = try await container.reset()
            _ = try await withTimeout(.seconds(30), "after reset") { try await container.service(registration) }
            if try container.resolve(.token) != published { inconsistent += 1 }
            _ = try await container.shutdown()
        }
        #expect(inconsistent == 0, "\(inconsistent) of 20 runs kept a value the store had replaced")
    }

    @Test("BUG: a reload that changes an input's type: the old value is unusable yet counts as supplied")
    func reloadChangesInputType() async throws {
        let tokens = OrderLog()
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = ServiceContainer(
            graph: try ServiceGraph(inputSpecs(tokens: tokens, log: log)), trace: [trace])
        try await container.supply(.token, "token-1")
        _ = try await withTimeout(.seconds(30), "registration") { try await container.service(registration) }

        let intToken = ServiceKey<Int>("token")
        let reloaded = try ServiceGraph([
            .input(intToken),
            countedSpec("registration", dependsOn: ["token"], log: log, start: .lazy) { context in
                tokens.append(String(try context[intToken]))
            },
        ])
        _ = try await withTimeout(.seconds(30), "reload") { try await container.reload(reloaded) }
        #expect(container.status.inputsNotSupplied == ["token"], "a String cannot be the Int input's value")

        let request = Task { try await container.service(registration) }
        // Expected: the input node waits for an Int (supplied next); observed: it fails at once.
        try await trace.wait(for: "the input to start again", timeout: .seconds(30), until: started("token", count: 2))
        try await container.supply(intToken, 7)
        let first = try await withTimeout(.seconds(30), "request") { await request.result }
        if case .failure(let error) = first { Issue.record("the request after the reload failed: \(error)") }
        let second = try await withTimeout(.seconds(30), "request after supply") {
            await attempt { try await container.service(registration) }
        }
        if case .failure(let error) = second { Issue.record("even after supply(7) the request fails: \(error)") }
        #expect(tokens.entries.last == "7", "registration read \(tokens.entries)")
    }

    @Test("BUG: shutdown(deadline:) while an input waits: the caller gets shutDown, the input is not 'failed'")
    func gracefulShutdownWhileWaiting() async throws {
        let trace = TraceWatcher()
        let container = try ServiceContainer(inputSpecs(tokens: OrderLog(), log: OrderLog()), trace: [trace])
        let request = Task { try await container.service(registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
        _ = try await withTimeout(.seconds(30), "shutdown(deadline:)") {
            try await container.shutdown(deadline: .now + .seconds(20))
        }
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "caller") { try await request.value }
        }
        #expect(error?.code == .shutDown, "got \(String(describing: error))")
        // The input's node.failed stays (its wait was ended): its error says why, not "Closed()".
        let failed = trace.events.filter { $0.kind.name == "node.failed" && $0.kind.node == "token" }
        let messages = failed.compactMap { event -> String? in
            if case .nodeFailed(_, _, let error, _) = event.kind { return error }
            return nil
        }
        #expect(messages.allSatisfy { $0.contains("shut down before input 'token' was supplied") }, "\(messages)")
    }

    @Test("BUG (race): shutdown() while an input waits: every caller gets shutDown")
    func shutdownWhileWaitingRace() async throws {
        var codes: [String: Int] = [:]
        var inputFailed = 0
        for _ in 0..<50 {
            let trace = TraceWatcher()
            let container = try ServiceContainer(inputSpecs(tokens: OrderLog(), log: OrderLog()), trace: [trace])
            let request = Task { try await container.service(registration) }
            try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
            _ = try await withTimeout(.seconds(30), "shutdown()") { try await container.shutdown() }
            let result = try await withTimeout(.seconds(30), "caller") { await request.result }
            if case .failure(let error as ContainerError) = result {
                codes[error.code.description, default: 0] += 1
            } else {
                codes["other", default: 0] += 1
            }
            if trace.events.contains(where: { $0.kind.name == "node.failed" && $0.kind.node == "token" }) {
                inputFailed += 1
            }
        }
        #expect(codes == ["shutDown": 50], "caller outcomes over 50 runs: \(codes)")
        #expect(inputFailed == 0, "the input node was traced as failed in \(inputFailed) of 50 runs")
    }

    @Test(
        "a build waiting for an input does not block the retry of an unrelated failed service",
        .disabled(
            "known limitation: one build at a time per generation, and a failed member is not run again within its build; a build waiting for an input is unbounded, so the retry waits for the input"
        ))
    func waitingInputBlocksRetry() async throws {
        let runs = Atomic<Int>(0)
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            inputSpecs(tokens: OrderLog(), log: log) + [
                countedSpec("flaky", log: log, start: .lazy) { _ in
                    if runs.add(1, ordering: .relaxed).newValue == 1 { throw TestError("first run fails") }
                }
            ], trace: [trace])
        let waiting = Task { try await container.service(registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "flaky, first") { try await container.service(.made("flaky")) }
        }
        let retry = Task { try await container.service(.made("flaky")) }
        let retried = try? await withTimeout(.seconds(3), "flaky's retry") { try await retry.value }
        let wasRetried = retried != nil
        #expect(wasRetried, "the retry of flaky waits for the app's token")
        try await container.supply(.token, "t")
        _ = try await withTimeout(.seconds(30), "waiting") { await waiting.result }
        _ = try await withTimeout(.seconds(30), "retry") { await retry.result }
    }

    // MARK: Everything else with inputs

    @Test("cancelling the only caller: the wait goes on; reset(), reload and shutdown(deadline:) do not hang")
    func cancelledOnlyCaller() async throws {
        let tokens = OrderLog()
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = ServiceContainer(graph: try ServiceGraph(inputSpecs(tokens: tokens, log: log)), trace: [trace])
        let cancelled = Task { try await container.service(registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
        cancelled.cancel()
        _ = try await withTimeout(.seconds(30), "cancelled") { await cancelled.result }
        _ = try await withTimeout(.seconds(30), "reset()") { try await container.reset() }
        let again = Task { try await container.service(registration) }
        try await trace.wait(for: "the input waits again", timeout: .seconds(30), until: started("token", count: 2))
        again.cancel()
        _ = try await withTimeout(.seconds(30), "cancelled again") { await again.result }
        _ = try await withTimeout(.seconds(30), "reload") {
            try await container.reload(
                try ServiceGraph(inputSpecs(tokens: tokens, log: log) + [countedSpec("x", log: log)]))
        }
        let third = Task { try await container.service(registration) }
        try await trace.wait(
            for: "the input waits a third time", timeout: .seconds(30), until: started("token", count: 3))
        third.cancel()
        _ = try await withTimeout(.seconds(30), "third") { await third.result }
        // Well before its deadline: nothing is left to wait for.
        _ = try await withTimeout(.seconds(25), "shutdown(deadline:)") {
            try await container.shutdown(deadline: .now + .seconds(30))
        }
    }

    @Test("an eager service that depends on an input: start() waits for it, supply completes start()")
    func eagerDependentStartWaits() async throws {
        let tokens = OrderLog()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            inputSpecs(tokens: tokens, log: OrderLog(), start: .eager), trace: [trace])
        let start = Task { try await container.start() }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
        #expect(container.status.service("token")?.state == .waitingForInput)
        try await container.supply(.token, "t")
        let services = try await withTimeout(.seconds(30), "start()") { try await start.value }
        #expect(services.contains("registration"))
        #expect(tokens.entries == ["t"])
    }

    @Test("a second value while the dependents build: the old build is superseded, the next one reads the new value")
    func supplyWhileDependentsBuild() async throws {
        let tokens = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(inputSpecs(tokens: tokens, log: OrderLog(), gate: gate), trace: [trace])
        try await container.supply(.token, "token-1")
        let first = Task { try await container.service(registration) }
        try await trace.wait(for: "registration to run", timeout: .seconds(30), until: started("registration"))
        let report = try await container.supply(.token, "token-2")
        #expect(report != nil)
        gate.open()
        let result = try await withTimeout(.seconds(30), "first") { await first.result }
        if case .failure(let error as ContainerError) = result { #expect(error.code == .superseded) }
        _ = try await withTimeout(.seconds(30), "second") { try await container.service(registration) }
        #expect(try container.resolve(.token) == "token-2")
        #expect(tokens.entries.last == "token-2")
    }

    @Test("reset() keeps the supplied value; supply racing reset() ends consistent")
    func resetKeepsValues() async throws {
        let tokens = OrderLog()
        let container = try ServiceContainer(inputSpecs(tokens: tokens, log: OrderLog()))
        try await container.supply(.token, "t0")
        _ = try await withTimeout(.seconds(30), "first") { try await container.service(registration) }
        _ = try await container.reset()
        #expect(container.status.inputsNotSupplied.isEmpty)
        _ = try await withTimeout(.seconds(30), "after reset") { try await container.service(registration) }
        #expect(tokens.entries == ["t0", "t0"])
        for round in 1...20 {
            async let supplied: ServiceContainer.ResetReport? = container.supply(.token, "t\(round)")
            async let reset: ServiceContainer.ResetReport = container.reset()
            _ = try await (supplied, reset)
            _ = try await withTimeout(.seconds(30), "round \(round)") {
                try await container.service(registration)
            }
            #expect(try container.resolve(.token) == "t\(round)")
        }
    }

    @Test("fail-fast: a failure cancels the waiting input; it waits again and a supply completes it")
    func failFastCancelsWaitingInput() async throws {
        let log = OrderLog()
        let tokens = OrderLog()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            inputSpecs(tokens: tokens, log: log) + [
                countedSpec("boom", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("no") }
            ], policy: .failFast, trace: [trace])
        let waiting = Task { try await container.service(registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("token"))
        _ = try await withTimeout(.seconds(30), "boom") { await attempt { try await container.service(.made("boom")) } }
        _ = try await withTimeout(.seconds(30), "waiting") { await waiting.result }
        let again = Task { try await container.service(registration) }
        try await trace.wait(for: "the input waits again", timeout: .seconds(30), until: started("token", count: 2))
        try await container.supply(.token, "t")
        _ = try await withTimeout(.seconds(30), "again") { try await again.value }
        #expect(tokens.entries == ["t"])
    }

    @Test("a scoped service reading an app input: waits, then reads it; a new value rebuilds the instance's")
    func scopedReaderOfInput() async throws {
        let tokens = OrderLog()
        let log = OrderLog()
        var handler = countedSpec("handler", dependsOn: ["token"], log: log) { context in
            tokens.append(try context[.token])
        }
        handler.lifetime = .scope("push")
        let container = ServiceContainer(graph: try ServiceGraph([.input(.token), handler], scopes: ["push"]))
        let push = try container.openScope("push", id: "1")
        let start = Task { try await push.start() }
        try await container.supply(.token, "t1")
        _ = try await withTimeout(.seconds(30), "push.start()") { try await start.value }
        #expect(tokens.entries == ["t1"])
        try await container.supply(.token, "t2")
        let again = try await withTimeout(.seconds(30), "push.start() again") {
            try await push.start()
        }
        #expect(again.contains("handler"))
        #expect(tokens.entries == ["t1", "t2"])
        _ = try await container.shutdown()
    }

}

private func attempt<T: Sendable>(_ body: @Sendable () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

@Suite("A request failing while its build still runs: its report can be read", .timeLimit(.minutes(1)))
struct FailureDuringBuildTests {
    @Test("a request failing while another node of its build still runs: its error's report can be printed")
    func failedRequestReportWhileBuildRuns() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("slow", log: log, start: .lazy) { _ in try await gate.wait(timeout: .seconds(30), "slow") },
                countedSpec("boom", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("no") },
            ], trace: [trace])
        let slow = Task { try await container.service(.made("slow")) }
        try await trace.wait(for: "slow to run", timeout: .seconds(30), until: started("slow"))
        let result = try await withTimeout(.seconds(30), "boom") {
            await attempt { try await container.service(.made("boom")) }
        }
        guard case .failure(let error as ContainerError) = result else {
            Issue.record("boom succeeded")
            return
        }
        #expect(error.report?.outcome(of: "boom") != nil)
        let report = try #require(error.report)
        #expect(String(describing: report).contains("boom"))  // crashes: "node 0 has no outcome"
        gate.open()
        _ = try await withTimeout(.seconds(30), "slow") { await slow.result }
    }
}
