import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// A scene scope whose `router` (on the app's `session`) is held by a gate in its first build.
private struct HeldRouterApp: Sendable {
    let gate = Gate()
    let routerStarted = Gate()
    let torn = OrderLog()

    func graph() throws -> ServiceGraph {
        try ServiceGraph(
            [
                ServiceSpec(.built("session"), tearDown: { [torn] _ in torn.append("session") }) { context in
                    Built(service: "session", generation: context.generation, instance: nil)
                },
                ServiceSpec(
                    .built("router"), dependsOn: ["session"], lifetime: .scope("scene"),
                    tearDown: { [torn] _ in torn.append("router") }
                ) { [gate, routerStarted] context in
                    routerStarted.open()
                    try await gate.cancellableWait()
                    return Built(service: "router", generation: context.generation, instance: context.scopeInstance)
                },
            ], scopes: ["scene"])
    }
}

@Suite("Scopes: an instance's lease of an app value (Scopes)")
struct ScopeLeaseTests {
    @Test("a second request that leased the same app value does not hand it back while the instance uses it")
    func secondLeaseKeepsTheValue() async throws {
        let app = HeldRouterApp()
        // Untraced: an untraced instance takes the app values of a published snapshot with the request.
        let container = ServiceContainer(graph: try app.graph())
        _ = try await container.start()
        let scene = try container.openScope("scene", id: "w")
        let first = Task { try await scene.start(as: "first") }
        try await app.routerStarted.wait(timeout: .seconds(60), "the router to start")
        // The second request leases `session` again from the published app snapshot, and joins.
        let second = Task { try await scene.start(as: "second") }
        let deadline = ContinuousClock.now + .seconds(60)
        while scene.core.status.waitingCallers < 2 {
            guard ContinuousClock.now < deadline else { throw TestError("the second request never joined") }
            await Task.yield()
        }
        app.gate.open()
        _ = try await withTimeout { try await first.value }
        _ = try await withTimeout { try await second.value }
        // The instance still uses `session`: a reset of it supersedes the instance, whose router
        // goes first.
        _ = try await withTimeout { try await container.reset(invalidating: ["session"]) }
        #expect(app.torn.entries == ["router", "session"])
    }
}
