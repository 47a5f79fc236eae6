import ContainerTesting
import Testing

@testable import Container

/// What a reset or reload report says carried over: the services whose values the new generation
/// holds from the old one, never a service that held none (never asked for, or retired by a
/// failure), which the new generation builds again when asked.
@Suite("Reports: what carried over", .timeLimit(.minutes(2)))
struct CarriedOverReportTests {
    @Test("reset(invalidating:) in a demand-driven graph: carriedOver lists only services that had values")
    func resetCarriesOnlyValues() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("e", log: log),
            countedSpec("x", log: log),
            countedSpec("never", log: log, start: .lazy),
        ])
        _ = try await withTimeout(.seconds(30), "start") { try await container.start() }
        let report = try await withTimeout(.seconds(30), "reset") { try await container.reset(invalidating: ["x"]) }
        #expect(report.invalidated == ["x"], "\(report.invalidated)")
        #expect(report.carriedOver == ["e"], "'never' was never built: \(report.carriedOver)")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }

    @Test("reload in a demand-driven graph: carriedOver lists only services that had values")
    func reloadCarriesOnlyValues() async throws {
        let log = OrderLog()
        @Sendable func graph(_ version: Int) throws -> ServiceGraph {
            var x = countedSpec("x", log: log)
            x.options = ServiceOptions(["version": .int(version)])
            return try ServiceGraph([countedSpec("e", log: log), x, countedSpec("never", log: log, start: .lazy)])
        }
        let container = ServiceContainer(graph: try graph(1))
        _ = try await withTimeout(.seconds(30), "start") { try await container.start() }
        let report = try await withTimeout(.seconds(30), "reload") { try await container.reload(try graph(2)) }
        #expect(report.carriedOver == ["e"], "\(report.carriedOver)")
        #expect(report.rebuilt == ["x"])
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }

    @Test("after a permanent failure retired e, a reload does not report e carried over: it is built again")
    func reloadAfterPermanentFailure() async throws {
        let log = OrderLog()
        let tornDown = OrderLog()
        @Sendable func graph(_ version: Int) throws -> ServiceGraph {
            var y = countedSpec("y", log: log)
            y.options = ServiceOptions(["version": .int(version)])
            return try ServiceGraph([
                countedSpec("e", log: log, tearDown: { tornDown.append($0.name) }),
                countedSpec("x", dependsOn: ["e"], log: log, defaultFailure: .permanent) { _ in
                    if log.count(of: "x") == 1 { throw TestError("x down") }
                },
                y,
            ])
        }
        let container = ServiceContainer(graph: try graph(1))
        await #expect(throws: ContainerError.self) { try await container.start() }
        let report = try await withTimeout(.seconds(30), "reload") { try await container.reload(try graph(2)) }
        _ = try await withTimeout(.seconds(30), "start after reload") { try await container.start() }
        #expect(log.count(of: "e") == 2)
        #expect(!report.carriedOver.contains("e"), "\(report.carriedOver)")
        #expect(report.carriedOver.isEmpty && report.rebuilt == ["y"], "\(report)")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        #expect(tornDown.entries == ["e", "e"], "one teardown per value: \(tornDown.entries)")
    }
}
