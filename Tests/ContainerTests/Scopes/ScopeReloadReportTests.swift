import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// What a reload's report says of the open scope instances of a scope it changed.
@Suite("A reload's report names the scope instances it rebuilt, and only those")
struct ScopeReloadReportTests {
    @Test("an instance closing on its own when the reload arrives is not rebuilt, nor reported rebuilt")
    func closingInstanceIsNotReportedRebuilt() async throws {
        let built = Counter()
        let closing = Gate()
        let release = Gate()
        let tornDown = Counter()
        let log = OrderLog()
        let v1 = try LifecycleRaceTests.graph(
            log: log, detail: { built.increment() },
            tearDown: {
                // Only the first instance's teardown is held: the other one's runs through.
                if tornDown.increment() == 1 {
                    closing.open()
                    await release.wait()
                }
            })
        // Version 2 changes the scope only: its detail reads the session.
        let v2 = try LifecycleRaceTests.graph(log: log, detailReads: "session", detail: { built.increment() })
        let container = ServiceContainer(graph: v1)
        let leaving = try container.openScope("push", id: "leaving")
        let staying = try container.openScope("push", id: "staying")
        _ = try await withTimeout { try await leaving.start() }
        _ = try await withTimeout { try await staying.start() }
        #expect(built.count == 2)
        // The leaving instance closes on its own and is held in its teardown: its parent still
        // counts it open, so the reload orders it to rebuild, and it refuses.
        let close = Task { try await leaving.close() }
        // However the test ends, the held teardown is let go.
        defer { release.open() }
        try await closing.wait(timeout: .seconds(60), "the leaving instance's teardown to start")
        let report = try await withTimeout { try await container.reload(v2) }
        #expect(report.reloadedScopes == ["push#staying"])
        #expect(report.closedScopes.isEmpty)
        #expect(!report.description.contains("leaving"), "\(report)")
        release.open()
        _ = try await withTimeout { try await close.value }
        // The staying instance rebuilt its detail on the new part; the leaving one did not.
        _ = try await withTimeout { try await staying.start() }
        #expect(built.count == 3)
        #expect(tornDown.count == 2, "the leaving instance's detail, and the staying one's first")
        #expect(container.openInstances(of: "push").map(\.label) == ["push#staying"])
    }
}
