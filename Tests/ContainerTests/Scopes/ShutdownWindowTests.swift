import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// Found by an outside stress run: the app's shutdown step refuses new callers at once, but its
/// scope instances heard of it only when their close orders reached them, after the step; and an
/// untraced `start()` found the published snapshot while a graceful shutdown drained.
@Suite("Shutdown: from its first step, nothing answers a new caller")
struct ShutdownWindowTests {
    private static func graph() throws -> ServiceGraph {
        try ServiceGraph(
            [
                ServiceSpec(.made("a")) { _ in Made(name: "a", generation: 1) },
                ServiceSpec(.made("s"), dependsOn: ["a"], lifetime: .scope("push")) { _ in
                    Made(name: "s", generation: 1)
                },
                ServiceSpec.synchronous(.made("now"), lifetime: .scope("push")) { _ in Made(name: "now", generation: 1)
                },
            ], scopes: ["push", .init("child", parent: "push")])
    }

    @Test("an instance refuses with closed once the app took its shutdown step, before its close order comes")
    func instanceRefusesBeforeItsOrder() async throws {
        let container = ServiceContainer(graph: try Self.graph())
        _ = try await container.start()
        let instance = try container.openScope("push", id: "p")
        _ = try await instance.start()
        let done = Gate()
        // The app's step alone: its orders to the instances are not carried out yet.
        let action = container.core.transition { machine, now in
            machine.shutdownRequested(
                waiter: { _ in done.open() }, graceful: false, error: .shutDown(generation: 1), now: now)
        }
        let started = await #expect(throws: ContainerError.self) { try await instance.start() }
        #expect(started?.code == .closed)
        let opened = #expect(throws: ContainerError.self) { try instance.openScope("child", id: "c") }
        #expect(opened?.code == .closed)
        let resolved = #expect(throws: ContainerError.self) { try instance.resolveNow(.made("now")) }
        #expect(resolved?.code == .closed)
        let service = await #expect(throws: ContainerError.self) { try await container.service(.made("a")) }
        #expect(service?.code == .shutDown)
        // The rest of the shutdown.
        guard case .proceed(let supersession, let lifecycle) = action else {
            Issue.record("expected the shutdown to proceed, got \(action)")
            return
        }
        container.core.perform(supersession, lifecycle)
        container.core.perform(container.core.transition { machine, now in machine.shutdownTraced(now: now) })
        try await done.wait(timeout: .seconds(30), "the shutdown to complete")
    }

    @Test("start(), start(needs:) and service(_:) are refused while a graceful shutdown drains")
    func refusedWhileDraining() async throws {
        let gate = Gate()
        let started = Gate()
        let container = try ServiceContainer([
            countedSpec("a", log: OrderLog()),
            countedSpec("slow", log: OrderLog(), start: .lazy) { _ in
                started.open()
                try await gate.wait(timeout: .seconds(30), "the test to open slow")
            },
        ])
        _ = try await container.start()
        let slow = Task { try await container.service(.made("slow")) }
        try await started.wait(timeout: .seconds(30), "slow to start")
        let shutdown = Task { try await container.shutdown(deadline: .now + .seconds(30)) }
        // The shutdown's step comes first: its status says so.
        try await withTimeout(.seconds(30), "the shutdown's first step") {
            while container.status.state != .shuttingDown { await Task.yield() }
        }
        for call in ["start()", "start(needs:)", "service(_:)"] {
            let error = await #expect(throws: ContainerError.self, "\(call)") {
                switch call {
                case "start()": _ = try await container.start()
                case "start(needs:)": _ = try await container.start(needs: [ServiceKey<Made>.made("a").erased])
                default: _ = try await container.service(.made("a"))
                }
            }
            #expect(error?.code == .shutDown, "\(call)")
        }
        gate.open()
        _ = try await withTimeout(.seconds(30), "slow") { try await slow.value }
        _ = try await withTimeout(.seconds(30), "the shutdown") { try await shutdown.value }
    }
}
