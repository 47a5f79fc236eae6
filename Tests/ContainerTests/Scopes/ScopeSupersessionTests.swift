import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// A scene scope whose `router` (on the app's `session`) is held, in the instance's first
/// generation, by a gate that ignores cancellation: the build cannot stop early, so whatever it
/// makes arrives after the reset that superseded it.
private struct LateRouterApp: Sendable {
    let gate = Gate()
    let routerStarted = Gate()
    /// Every router value made, and how many times each was torn down (by identity).
    let made = Locked<[Built]>([])
    let tornDown = Locked<[ObjectIdentifier: Int]>([:])

    func graph() throws -> ServiceGraph {
        try ServiceGraph(
            [
                ServiceSpec(.built("configuration")) { context in
                    Built(service: "configuration", generation: context.generation, instance: nil)
                },
                ServiceSpec(.built("session"), dependsOn: ["configuration"]) { context in
                    Built(service: "session", generation: context.generation, instance: nil)
                },
                ServiceSpec(
                    .built("router"), dependsOn: ["session"], lifetime: .scope("scene"),
                    tearDown: { [tornDown] value in tornDown.withLock { $0[ObjectIdentifier(value), default: 0] += 1 } }
                ) { [gate, routerStarted, made] context in
                    routerStarted.open()
                    // Never checks for cancellation, like a provider stuck in a call it cannot abandon.
                    if context.generation == 1 { await gate.wait() }
                    let session = try context[.built("session")]
                    let value = Built(
                        service: "router", generation: session.generation, instance: context.scopeInstance)
                    made.withLock { $0.append(value) }
                    return value
                },
            ], scopes: ["scene"])
    }

    func tearDowns(of value: Built) -> Int { tornDown.withLock { $0[ObjectIdentifier(value)] ?? 0 } }
}

@Suite("Scopes: a superseded build whose provider ignores cancellation (Scopes)")
struct ScopeSupersessionTests {
    @Test("A superseded scope build never publishes, even when its provider finishes after the reset")
    func supersededBuildNeverPublishesWhenCancellationIsIgnored() async throws {
        let app = LateRouterApp()
        let trace = TraceWatcher()
        let container = ServiceContainer(graph: try app.graph(), trace: [trace])
        let scene = try container.openScope("scene", id: "w")
        let caller = Task { try await scene.start() }
        try await app.routerStarted.wait(timeout: .seconds(60), "the router to start")

        let reset = Task { try await container.reset(invalidating: ["session"]) }
        // Both the app and the instance moved to a new generation while the router is still held.
        try await trace.wait(for: "the app's and the instance's generation.reset", timeout: .seconds(60)) { events in
            let resets = events.filter { $0.kind.name == "generation.reset" }
            return resets.contains { $0.scope == nil } && resets.contains { $0.scope == scene.label }
        }
        #expect(app.made.withLock { $0.isEmpty }, "the router is still held")
        let superseded = try await withTimeout(.seconds(60), "the instance's caller") { await caller.result }
        #expect((superseded.error as? ContainerError)?.code == .superseded)

        app.gate.open()
        let report = try await withTimeout(.seconds(60), "the reset") { try await reset.value }
        let late = try #require(app.made.withLock { $0.first })
        #expect(late.generation == 1, "the late router was made from the retired session")
        #expect(app.tearDowns(of: late) == 1, "the late value is torn down once, before the reset returns")
        #expect(report.tornDown.contains { $0.service == "router" && $0.scope == scene.label })
        #expect(scene.current == nil)
        #expect(
            !trace.events.contains { $0.scope == scene.label && $0.kind.name == "snapshot.published" },
            "the superseded build never published")

        let next = try await withTimeout(.seconds(60), "the rebuild") { try await scene.start() }
        #expect(next.appGeneration == 2 && next.generation == 2)
        let router = try next[.built("router")]
        #expect(router !== late && router.generation == 2)
        #expect(try next[.built("session")].generation == 2)
        // The watcher does see the instance's publications: the rebuild's is there.
        #expect(
            trace.events.contains {
                $0.scope == scene.label && $0.kind.name == "snapshot.published" && $0.generation == 2
            })

        try await container.shutdown()
        #expect(app.tearDowns(of: late) == 1 && app.tearDowns(of: router) == 1, "each value torn down exactly once")
        #expect(app.made.withLock { $0.count } == 2)
    }
}
