import ContainerTesting
import Synchronization
import Testing

@testable import Container

private final class Database: Sendable {}
private struct Detail: Sendable { let database: Database }

extension ServiceKey where Value == Database {
    fileprivate static let database = ServiceKey("database")
}

extension ServiceKey where Value == Detail {
    fileprivate static let detail = ServiceKey("detail")
}

/// An instance's request leases the app values of the published snapshot before its own step;
/// a reset of the app can retire one of them and supersede the instance in between. Found by
/// an outside stress run: the instance then kept the retired value in its new generation, and
/// the reset (and every build after it) waited for its lease forever.
@Suite("Scopes: a lease taken before a reset never survives it")
struct StaleLeaseTests {
    /// 16 instances of an app-ready container start (with `start()`, or `resolveNow` on threads
    /// of their own) while `reset(invalidating: ["database"])` runs, `rounds` times with varied
    /// timing. The reset returns, tears the old database down exactly once, and no instance
    /// publishes a value built on it.
    private func race(rounds: Int, now: Bool) async throws {
        for round in 0..<rounds {
            let tornDown = Atomic<Int>(0)
            let graph = try ServiceGraph(
                [
                    ServiceSpec.synchronous(.database, tearDown: { _ in tornDown.add(1, ordering: .relaxed) }) { _ in
                        Database()
                    },
                    ServiceSpec.synchronous(.detail, dependsOn: ["database"], lifetime: .scope("push")) { context in
                        Detail(database: try context[.database])
                    },
                ], scopes: ["push"])
            let container = ServiceContainer(graph: graph)
            let old = try await container.start()[.database]
            let instances = try (0..<16).map { try container.openScope("push", id: "i\($0)") }
            let starts = Task.detached {
                await withTaskGroup(of: Void.self) { group in
                    for instance in instances {
                        if now {
                            group.addTask {
                                _ = await DefectRegressionTests.onThread { try? instance.resolveNow(.detail) }
                            }
                        } else {
                            group.addTask { _ = try? await instance.start() }
                        }
                    }
                }
            }
            let yields = round % 16
            let reset = Task.detached {
                for _ in 0..<yields { await Task.yield() }
                return try await container.reset(invalidating: ["database"])
            }
            _ = try await withTimeout(.seconds(30), "the reset (round \(round))") { try await reset.value }
            _ = try await withTimeout(.seconds(30), "the starts (round \(round))") { await starts.value }
            #expect(tornDown.load(ordering: .relaxed) == 1, "round \(round): the old database, torn down once")
            for instance in instances {
                let held = try? instance.current?[.detail].database
                #expect(held !== old, "round \(round): \(instance.label) holds a detail built on the retired database")
            }
            _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        }
    }

    /// The interleaving itself, step by step: the instance's request leases the database, the
    /// app's reset retires it and supersedes the instance, then the request takes its step.
    @Test("values leased before a supersession go back to the app, and the request fetches new ones")
    func leaseThenResetThenRequest() async throws {
        let tornDown = Atomic<Int>(0)
        let trace = TraceWatcher()
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec.synchronous(.database, tearDown: { _ in tornDown.add(1, ordering: .relaxed) }) { _ in
                        Database()
                    },
                    ServiceSpec.synchronous(.detail, dependsOn: ["database"], lifetime: .scope("push")) { context in
                        Detail(database: try context[.database])
                    },
                ], scopes: ["push"]), trace: [trace])
        let old = try await container.start()[.database]
        let instance = try container.openScope("push", id: "p")
        // The request's first part: the lease of the published app values.
        let given = try #require(instance.core.readyAppValues())
        let reset = Task { try await container.reset(invalidating: ["database"]) }
        try await trace.wait(for: "the reset to supersede the instance", timeout: .seconds(30)) { events in
            events.contains { $0.scope == instance.label && $0.kind.name == "generation.reset" }
        }
        #expect(tornDown.load(ordering: .relaxed) == 0, "the instance's lease holds the old database back")
        // The request's step, with what it leased before the supersession.
        let services = try await withTimeout(.seconds(30), "the request") {
            try await instance.core.request(.eager, label: nil, priorityLimit: nil, given: given)
        }
        #expect(try services[.detail].database !== old, "built on the database of the app's new generation")
        _ = try await withTimeout(.seconds(30), "the reset") { try await reset.value }
        #expect(tornDown.load(ordering: .relaxed) == 1, "the old database, torn down once the lease went back")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }

    @Test("instances starting while the app resets a value they use")
    func startsRacingReset() async throws { try await race(rounds: 200, now: false) }

    @Test("instances resolving now on threads while the app resets a value they use")
    func resolveNowRacingReset() async throws { try await race(rounds: 100, now: true) }
}
