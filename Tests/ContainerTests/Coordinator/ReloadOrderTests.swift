import ContainerTesting
import Testing

@testable import Container

/// Reloads called concurrently run one at a time: each starts from the graph the previous one
/// adopted, so the container ends on the graph of the last reload to run, and a reload a
/// shutdown refuses changes nothing, not even ``ServiceContainer/graph``.
@Suite("Reload order")
struct ReloadOrderTests {
    /// `base <- leaf`, where `leaf`'s option `version` tells the graphs apart.
    static func graph(version: Int) throws -> ServiceGraph {
        try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("base")) { _ in 0 },
            ServiceSpec(
                ServiceKey<Int>("leaf"), dependsOn: ["base"], options: ServiceOptions(["version": .int(version)])
            ) { context in
                guard case .int(let version)? = context.options.values["version"] else { return -1 }
                return version
            },
        ])
    }

    @Test("20 concurrent reloads: a chain of generations, and the container ends on the last one's graph")
    func concurrentReloadsChain() async throws {
        for round in 0..<5 {
            let container = ServiceContainer(graph: try Self.graph(version: 0))
            _ = try await withTimeout(.seconds(60), "the first build") { try await container.start() }
            let reports = try await withTimeout(.seconds(60), "20 concurrent reloads") {
                try await withThrowingTaskGroup(of: (version: Int, report: ServiceContainer.ReloadReport).self) {
                    group in
                    for version in 1...20 {
                        group.addTask { (version, try await container.reload(try Self.graph(version: version))) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            // One generation each, in a chain: each reload started from the previous one's.
            let ordered = reports.sorted { $0.report.to < $1.report.to }
            #expect(ordered.map(\.report.to) == Array(2...21), "round \(round)")
            #expect(ordered.map(\.report.from) == Array(1...20), "round \(round)")
            // Each changed exactly the leaf against the graph before it (none saw a stale graph).
            for entry in ordered { #expect(entry.report.changes.changed == ["leaf"], "round \(round)") }
            // The declared graph and the app's build agree: the last reload's.
            let last = try #require(ordered.last)
            #expect(container.graph.nodes.first { $0.name == "leaf" }?.options.values["version"] == .int(last.version))
            let services = try await withTimeout(.seconds(60), "the build after the reloads") {
                try await container.start()
            }
            #expect(try services[ServiceKey<Int>("leaf")] == last.version, "round \(round)")
        }
    }

    @Test("A reload a shutdown refuses changes nothing, not even the container's graph")
    func reloadRacingShutdown() async throws {
        for round in 0..<50 {
            let original = try Self.graph(version: 0)
            let container = ServiceContainer(graph: original)
            _ = try await withTimeout(.seconds(60), "the first build") { try await container.start() }
            async let reload: ServiceContainer.ReloadReport? = try? container.reload(try Self.graph(version: 1))
            async let shutdown: ServiceContainer.ResetReport? = try? container.shutdown()
            let (reloaded, shut) = await (reload, shutdown)
            #expect(shut != nil, "round \(round): the shutdown itself is never refused")
            let version = container.graph.nodes.first { $0.name == "leaf" }?.options.values["version"]
            #expect(version == .int(reloaded == nil ? 0 : 1), "round \(round): refused reload changed the graph")
        }
    }
}
