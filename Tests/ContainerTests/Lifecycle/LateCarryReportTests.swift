import ContainerTesting
import Testing

@testable import Container

/// CoordinatorRules.md, reset(invalidating:): "A service it keeps (or a reload keeps) whose
/// provider was still running when the reset came carries over too once it returns ... The
/// returned `ResetReport` lists what was invalidated, carried over and torn down".
/// ResetReport.carriedOver: "Services whose values carried over to the new generation unchanged."
/// The operation returns only after the superseded build ended (its late values are its to
/// report), so when the database carried over late, before it returned, its report must say so:
/// it is in neither `carriedOver` nor `tornDown`.
@Suite("Lifecycle: the report of a late value carried over")
struct LateCarryReportTests {
    @Test(
        "reset(invalidating: session) or a reload of session while database opens: the report lists database",
        arguments: [false, true])
    func lateCarriedValueIsReported(reload: Bool) async throws {
        let reached = Gate()
        let release = Gate()
        let opened = Counter()
        let database = ServiceSpec(key("database")) { c in
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
        let operation = Task { () throws -> (carried: [String], torn: [String], text: String) in
            if reload {
                let report = try await container.reload(newGraph)
                return (report.carriedOver, report.tornDown.map(\.service), "\(report)")
            }
            let report = try await container.reset(invalidating: ["session"])
            return (report.carriedOver, report.tornDown.map(\.service), "\(report)")
        }
        try await withTimeout(.seconds(30), "the operation to begin") {
            while container.generation < 2 { await Task.yield() }
        }
        release.open()
        _ = await first.result
        let report = try await withTimeout(.seconds(30), "the operation") { try await operation.value }
        let snapshot = try await withTimeout(.seconds(30), "g2") { try await container.start() }
        // The value carried over: opened once, built by generation 1.
        let builtBy = try snapshot[key("database")].generation
        #expect(opened.count == 1 && builtBy == 1)
        #expect(
            report.carried.contains("database") || report.torn.contains("database"),
            "the report does not account for database: \(report.text)")
        _ = try await container.shutdown()
    }
}
