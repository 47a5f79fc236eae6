import ContainerTesting
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let deviceToken = ServiceKey("deviceToken")
}

extension ServiceKey where Value == Made {
    fileprivate static let registration = ServiceKey("registration")
}

@Suite("Inputs: values the app supplies at run time (Demand-driven start-up)", .timeLimit(.minutes(1)))
struct InputTests {
    /// `configuration` (eager), the `deviceToken` input, and `registration`, which reads both and
    /// logs the token it read.
    private func container(_ log: OrderLog, tokens: OrderLog, trace: TraceWatcher) throws -> ServiceContainer {
        try ServiceContainer(
            [
                countedSpec("configuration", log: log),
                .input(.deviceToken),
                countedSpec("registration", dependsOn: ["configuration", "deviceToken"], log: log, start: .lazy) {
                    context in
                    tokens.append(try context[.deviceToken])
                },
            ], trace: [trace])
    }

    private func started(_ name: String) -> @Sendable ([TraceEvent]) -> Bool {
        { events in events.contains { $0.kind.name == "node.started" && $0.kind.node == name } }
    }

    @Test("a request that needs an input waits for it; supply completes it; start() never waits for a lazy input")
    func requestWaitsForInput() async throws {
        let log = OrderLog()
        let tokens = OrderLog()
        let trace = TraceWatcher()
        let container = try container(log, tokens: tokens, trace: trace)
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(container.status.inputsNotSupplied == ["deviceToken"])
        #expect(container.status.service("deviceToken")?.state == .notRequested)

        let request = Task { try await container.service(.registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("deviceToken"))
        #expect(container.status.service("deviceToken")?.state == .waitingForInput)
        #expect(log.count(of: "registration") == 0)

        let report = try await container.supply(.deviceToken, "token-1")
        #expect(report == nil, "a first value resets nothing")
        let registration = try await withTimeout(.seconds(30), "registration") { try await request.value }
        #expect(registration.name == "registration")
        #expect(tokens.entries == ["token-1"])
        #expect(container.status.inputsNotSupplied.isEmpty)
        #expect(container.status.service("deviceToken")?.state == .built)
        #expect(try container.resolve(.deviceToken) == "token-1")
        #expect(log.count(of: "configuration") == 1 && log.count(of: "registration") == 1)
    }

    @Test("supplying again resets the input's dependents only: rebuilt with the new value, the rest carried over")
    func supplyAgainResetsDependents() async throws {
        let log = OrderLog()
        let tokens = OrderLog()
        let trace = TraceWatcher()
        let container = try container(log, tokens: tokens, trace: trace)
        try await container.supply(.deviceToken, "token-1")
        _ = try await withTimeout(.seconds(30), "registration") { try await container.service(.registration) }
        let generation = container.generation

        let report = try #require(try await container.supply(.deviceToken, "token-2"))
        #expect(Set(report.invalidated) == ["deviceToken", "registration"])
        #expect(container.generation == generation + 1)
        _ = try await withTimeout(.seconds(30), "registration again") { try await container.service(.registration) }
        #expect(tokens.entries == ["token-1", "token-2"])
        #expect(log.count(of: "configuration") == 1, "what does not read the input carries over")
        #expect(log.count(of: "registration") == 2)
    }

    @Test("a wrong type, a service that is not an input, an unknown name: invalidInput, nothing changes")
    func badSupplies() async throws {
        let log = OrderLog()
        let container = try container(log, tokens: OrderLog(), trace: TraceWatcher())
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        let generation = container.generation
        let wrongType = await #expect(throws: ContainerError.self) {
            try await container.supply(ServiceKey<Int>("deviceToken"), 7)
        }
        #expect(wrongType?.code == .invalidInput)
        #expect(wrongType?.message.contains("holds String, not Int") == true)
        let notInput = await #expect(throws: ContainerError.self) {
            try await container.supply(ServiceKey<Made>.made("configuration"), Made(name: "x", generation: 1))
        }
        #expect(notInput?.message.contains("is not an input") == true)
        let unknown = await #expect(throws: ContainerError.self) {
            try await container.supply(ServiceKey<String>("deviceTokn"), "t")
        }
        #expect(unknown?.message.contains("did you mean 'deviceToken'?") == true)
        #expect(container.generation == generation)
        #expect(container.status.inputsNotSupplied == ["deviceToken"])
    }

    @Test("a caller waiting for an input can cancel; a shutdown ends the wait with shutDown and does not hang")
    func cancelAndShutdown() async throws {
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = try container(log, tokens: OrderLog(), trace: trace)
        let cancelled = Task { try await container.service(.registration) }
        try await trace.wait(for: "the input node to wait", timeout: .seconds(30), until: started("deviceToken"))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) {
            try await withTimeout(.seconds(30), "cancelled caller") { try await cancelled.value }
        }
        let waiting = Task { try await container.service(.registration) }
        try await trace.wait(for: "the second caller to join", timeout: .seconds(30)) { events in
            events.count { $0.kind.name == "caller.joined" } == 2
        }
        _ = try await withTimeout(.seconds(30), "shutdown()") { try await container.shutdown() }
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "waiting caller") { try await waiting.value }
        }
        #expect(error?.code == .shutDown)
        #expect(log.count(of: "registration") == 0)
    }

    @Test("an input with dependencies, or in a scope, is a graph error that says why")
    func invalidInputs() throws {
        var scoped = ServiceSpec.input(ServiceKey<String>("scopedToken"))
        scoped.lifetime = .scope("push")
        var dependent = ServiceSpec.input(ServiceKey<String>("token"))
        dependent.dependsOn = ["configuration"]
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([countedSpec("configuration", log: OrderLog()), scoped, dependent], scopes: ["push"])
        }
        #expect(error?.issues.map(\.code) == [.invalidInput, .invalidInput])
        #expect(error?.issues.first?.message.contains("inputs are app services") == true)
        #expect(error?.issues.last?.message.contains("remove its dependsOn") == true)
    }
}
