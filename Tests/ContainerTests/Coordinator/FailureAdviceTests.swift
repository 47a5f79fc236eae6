import ContainerTesting
import Testing

@testable import Container

@Suite("A build's error says who meets the failure again and what clears it")
struct FailureAdviceTests {
    private func permanent(_ name: String, start: StartPolicy = .eager, lifetime: ServiceSpec.Lifetime = .app)
        -> ServiceSpec
    {
        ServiceSpec(.made(name), lifetime: lifetime, start: start) { _ in throw Classified(failureKind: .permanent) }
    }

    @Test("every start() in a graph without start policies")
    func everyStart() async throws {
        let container = try ServiceContainer([countedSpec("a", log: OrderLog()), permanent("b")])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(error?.message.hasSuffix("the failure is permanent: every start() fails at once until reset()") == true)
    }

    @Test("the requests that need a lazy service, which start() does not")
    func requestsNeedingIt() async throws {
        let container = try ServiceContainer([countedSpec("a", log: OrderLog()), permanent("report", start: .lazy)])
        _ = try await container.start()
        let error = await #expect(throws: ContainerError.self) { try await container.service(.made("report")) }
        #expect(error?.message.contains("every request that needs it fails at once until reset(invalidating:)") == true)
        #expect(error?.message.contains("every start()") == false)
        _ = try await container.start()  // start() does not need it: it goes on
        #expect(container.status.state == .ready)
    }

    @Test("the attempt budget, used up by a lazy service")
    func exhaustedLazy() async throws {
        let container = try ServiceContainer(
            [
                countedSpec("a", log: OrderLog()),
                ServiceSpec(.made("report"), start: .lazy) { _ in throw Classified(failureKind: .transient) },
            ], policy: BuildPolicy(maxAttempts: 1))
        _ = try await container.start()
        let error = await #expect(throws: ContainerError.self) { try await container.service(.made("report")) }
        #expect(error?.code == .attemptsExhausted)
        #expect(error?.message.contains("every request that needs it fails at once") == true)
        #expect(error?.message.contains("every start()") == false)
    }

    @Test("a scope instance: close it and open it again")
    func instance() async throws {
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [countedSpec("a", log: OrderLog()), permanent("detail", lifetime: .scope("push"))], scopes: ["push"]))
        _ = try await container.start()
        let instance = try container.openScope("push", id: "p")
        let error = await #expect(throws: ContainerError.self) { try await instance.start() }
        #expect(error?.message.contains("close the instance and open it again") == true)
        #expect(error?.message.contains("reset()") == false)
    }
}
