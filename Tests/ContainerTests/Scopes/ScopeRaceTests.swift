import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// A value that remembers the value it was built on.
private final class Layer: Sendable {
    let name: String
    let below: ObjectIdentifier?
    init(name: String, below: ObjectIdentifier?) {
        self.name = name
        self.below = below
    }
}

@Suite("Scopes under races (Scopes)")
struct ScopeRaceTests {
    @Test("Close racing start, build completion and an app reset, 1,000 times: exactly once, scoped values first")
    func closeRaces() async throws {
        let session = ServiceKey<Layer>("session")
        let router = ServiceKey<Layer>("router")
        for iteration in 0..<1_000 {
            let torn = Locked<[(id: ObjectIdentifier, name: String, below: ObjectIdentifier?)]>([])
            let made = Locked<[ObjectIdentifier: Layer]>([:])
            let held = Gate()  // ignores cancellation: a router may be made after its instance is gone
            let routerStarted = Gate()
            let container = ServiceContainer(
                graph: try ServiceGraph(
                    [
                        ServiceSpec(
                            session,
                            tearDown: { value in torn.withLock { $0.append((ObjectIdentifier(value), value.name, nil)) }
                            }
                        ) { _ in
                            let value = Layer(name: "session", below: nil)
                            made.withLock { $0[ObjectIdentifier(value)] = value }
                            return value
                        },
                        ServiceSpec(
                            router, dependsOn: ["session"], lifetime: .scope("scene"),
                            tearDown: { value in
                                torn.withLock { $0.append((ObjectIdentifier(value), value.name, value.below)) }
                            }
                        ) { context in
                            routerStarted.open()
                            await held.wait()
                            let value = Layer(name: "router", below: ObjectIdentifier(try context[session]))
                            made.withLock { $0[ObjectIdentifier(value)] = value }
                            return value
                        },
                    ], scopes: ["scene"]))
            let scene = try container.openScope("scene", id: "w\(iteration)")
            let answered = Counter()
            let callers = (0..<3).map { _ in
                Task {
                    defer { answered.increment() }
                    return try await scene.start()
                }
            }
            try await withTimeout(.seconds(60), "the router to start") { await routerStarted.wait() }
            // The race: the build completes, the instance closes, the app resets, a caller arrives.
            async let complete: Void = held.open()
            async let close = try? await scene.close()
            async let reset = try? await container.reset(invalidating: ["session"])
            async let late = try? await scene.start()
            _ = await (complete, close, reset, late)
            for caller in callers { _ = await caller.result }
            #expect(answered.count == 3)
            try await container.shutdown()

            let order = torn.withLock { $0 }
            let built = made.withLock { $0 }
            // Every value made was torn down exactly once.
            #expect(order.count == built.count, "iteration \(iteration): \(order.map(\.name))")
            #expect(Set(order.map(\.id)).count == order.count, "iteration \(iteration): a value torn down twice")
            // A router is torn down before the session it was built on.
            for (position, entry) in order.enumerated() where entry.name == "router" {
                let sessionPosition = order.firstIndex { $0.id == entry.below }
                #expect(sessionPosition.map { $0 > position } ?? false, "iteration \(iteration): \(order.map(\.name))")
            }
        }
    }
}
