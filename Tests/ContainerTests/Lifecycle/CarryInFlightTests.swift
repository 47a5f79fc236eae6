import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// DESIGN §5 Incremental reset: "rebuilds only the named services and their dependents in the new
/// generation; the others carry over (same values, not rebuilt, not torn down). Logout must not
/// reopen the database." §3.8: "A node that already committed its effect and then sees a
/// cancellation keeps `succeeded`". CoordinatorRules / reset(invalidating:) doc: "the others carry
/// over to the new generation unchanged (not rebuilt, not torn down)".
/// When the database finished opening before the reset it is carried over (checked separately);
/// when its provider is still running at the reset, its value (succeeded) is torn down and the
/// database is opened again for generation 2.
@Suite("Lifecycle: a logout reset while the database is still opening", .serialized)
struct CarryInFlightTests {
    @Test(
        "reset(invalidating: session) while database's provider runs: the database is not opened twice",
        arguments: [false, true])
    func databaseNotReopened(synchronous: Bool) async throws {
        let probe = Probe()
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
        let gate = probe.hold("database")
        let specs: [ServiceSpec] =
            synchronous
            ? [probe.sync("database"), probe.async("session", ["database"])]
            : [database, probe.async("session", ["database"])]
        let container = ServiceContainer(graph: try ServiceGraph(specs))
        let first: Task<AppServices, any Error>
        if synchronous {
            first = Task {
                _ = try await offThePool { try container.resolveNow(key("database")) };
                return try await container.start()
            }
            try await offThePool { try gate.waitUntilReached() }
        } else {
            first = Task { try await container.start() }
            try await reached.wait(timeout: .seconds(30), "database to open")
        }
        let reset = Task { try await container.reset(invalidating: ["session"]) }
        try await withTimeout(.seconds(30), "the reset to begin") {
            while container.generation < 2 { await Task.yield() }
        }
        if synchronous { gate.open() } else { release.open() }
        _ = await first.result
        let report = try await withTimeout(.seconds(30), "reset") { try await reset.value }
        let snapshot = try await withTimeout(.seconds(30), "g2") { try await container.start() }
        let g2db = try snapshot[key("database")].generation
        let dbOpens = synchronous ? probe.makes("database") : opened.count
        let dbCloses = synchronous ? probe.tears("database") : closed.count
        #expect(
            dbOpens == 1 && dbCloses == 0,
            "logout reopened the database: opened \(dbOpens), closed \(dbCloses); report \(report); g2 database from g\(g2db)"
        )
        _ = try await container.shutdown()
    }
}
