import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// Reload.md / DESIGN §11: a reload "rebuilds exactly the changed, added and dependent services,
/// tears down the removed and replaced values, and carries every other value over unchanged".
@Suite("Lifecycle: a reload that changes another service while the database is still opening")
struct CarryInFlightReloadTests {
    @Test("reload changing only session's options while database's provider runs: the database is not opened twice")
    func databaseNotReopenedByReload() async throws {
        let reached = Gate()
        let release = Gate()
        let opened = Counter()
        let closed = Counter()
        let database = ServiceSpec(key("database"), tearDown: { _ in closed.increment() }) { c in
            opened.increment()
            reached.open()
            await release.wait()  // the open completes whatever the cancellation
            return Built(service: "database", generation: c.generation, instance: nil)
        }
        func session(_ version: Int) -> ServiceSpec {
            var spec = ServiceSpec(key("session"), dependsOn: ["database"]) { c in
                Built(service: "session", generation: c.generation, instance: nil)
            }
            spec.options = ServiceOptions(["v": .int(version)])
            return spec
        }
        let container = ServiceContainer(graph: try ServiceGraph([database, session(1)]))
        let first = Task { try await container.start() }
        try await reached.wait(timeout: .seconds(30), "database to open")
        let newGraph = try ServiceGraph([database, session(2)])
        let reload = Task { try await container.reload(newGraph) }
        try await withTimeout(.seconds(30), "the reload to begin") {
            while container.generation < 2 { await Task.yield() }
        }
        release.open()
        _ = await first.result
        let report = try await withTimeout(.seconds(30), "reload") { try await reload.value }
        _ = try await withTimeout(.seconds(30), "g2") { try await container.start() }
        #expect(
            opened.count == 1 && closed.count == 0,
            "reload reopened the unchanged database: opened \(opened.count), closed \(closed.count); \(report)")
        _ = try await container.shutdown()
    }
}
