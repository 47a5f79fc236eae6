import ContainerTesting
import Testing

@testable import Container

@Suite("A request is answered once its own closure is built, while the build goes on")
struct EarlyAnswerTests {
    @Test("a request for a quick service is answered while a gated sibling of the same build runs")
    func quickAnsweredBeforeSlowSibling() async throws {
        let log = OrderLog()
        let gate = Gate()
        let container = try ServiceContainer([
            countedSpec("quick", log: log),
            countedSpec("slow", log: log) { _ in try await gate.wait(timeout: .seconds(30), "the test to open slow") },
            countedSpec("other", log: log, start: .lazy),
        ])
        let launch = Task { try await container.start() }
        let quick = try await withTimeout(.seconds(30), "service(quick) while slow runs") {
            try await container.service(.made("quick"))
        }
        #expect(quick.name == "quick")
        #expect(log.count(of: "slow") <= 1)
        gate.open()
        _ = try await withTimeout(.seconds(30), "start()") { try await launch.value }
        #expect(log.count(of: "quick") == 1 && log.count(of: "slow") == 1)
    }

    @Test("a node a request adds on a finished member starts while the build's last node still runs")
    func addedNodeStartsBeforeSlowSibling() async throws {
        let log = OrderLog()
        let gate = Gate()
        let container = try ServiceContainer([
            countedSpec("base", log: log),
            countedSpec("slow", log: log) { _ in try await gate.wait(timeout: .seconds(30), "the test to open slow") },
            countedSpec("search", dependsOn: ["base"], log: log, start: .lazy),
        ])
        let launch = Task { try await container.start() }
        let search = try await withTimeout(.seconds(30), "service(search) while slow runs") {
            try await container.service(.made("search"))
        }
        #expect(search.name == "search")
        gate.open()
        _ = try await withTimeout(.seconds(30), "start()") { try await launch.value }
        #expect(log.count(of: "base") == 1 && log.count(of: "search") == 1 && log.count(of: "slow") == 1)
    }
}
