import ContainerTesting
import Testing

@testable import Container

/// A scope instance's build whose fetch of app values fails ends the members that read them
/// (skipped, because of the app service), so the trace keeps its invariants: every node it
/// added ends in one outcome.
@Suite("Scope instances: a build whose fetch of app values fails")
struct FetchFailureTraceTests {
    @Test("the app's build fails transiently while a top-level instance fetches from it", arguments: [true, false])
    func appFailure(policies: Bool) async throws {
        let trace = TraceWatcher()
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("database")) { _ in throw TestError("offline") },
                ServiceSpec(ServiceKey<Int>("search"), start: policies ? .lazy : .eager) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("detail"), dependsOn: ["database"], lifetime: .scope("push")) { c in
                    try c[ServiceKey<Int>("database")] + 1
                },
            ], scopes: ["push"])
        let container = ServiceContainer(graph: graph, trace: [trace])
        let instance = try container.openScope("push", id: "1")
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "the instance's start") { try await instance.start() }
        }
        #expect(error?.code == .buildFailed)
        #expect(error?.message.contains("offline") == true, "the app's failure: \(error?.message ?? "")")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        for result in TraceInvariants.check(trace.events, graph: graph) where !result.passed {
            Issue.record("\(result)")
        }
        let skipped = trace.events.filter { event in
            if case .nodeSkipped("detail", let because) = event.kind { return because == ["database"] }
            return false
        }
        #expect(skipped.count == 1, "detail ends skipped because of the database, once")
    }
}
