import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// ObservingTheServices.md, The status: statusUpdates gives "the last one at the shutdown,
/// exactly once (also to an iteration that begins after the shutdown), after which it ends".
/// The last element must be the container's final status, not one from before the shutdown
/// closed its scope instances.
@Suite("Lifecycle: the final status at the shutdown is the final state")
struct FinalStatusTests {
    @Test(
        "statusUpdates' last element after a shutdown that closed an open instance lists no open scope",
        arguments: [false, true])
    func finalStatusHasNoOpenScopes(held: Bool) async throws {
        let reached = Gate()
        let release = Gate()
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(key("settings")) { c in
                        Built(service: "settings", generation: c.generation, instance: nil)
                    },
                    ServiceSpec(key("router"), dependsOn: ["settings"], lifetime: .scope("scene")) { c in
                        if held {
                            reached.open()
                            await release.wait()  // finishes its work whatever the cancellation
                        }
                        return Built(service: "router", generation: c.generation, instance: c.scopeInstance)
                    },
                ], scopes: ["scene"]))
        let scene = try container.openScope("scene", id: "w1")
        let first = Task { try await scene.start() }
        if held {
            try await reached.wait(timeout: .seconds(30), "router to run")
        } else {
            _ = try await withTimeout(.seconds(30), "the instance") { try await first.value }
        }
        let got = Gate()
        let received = Locked<[ContainerStatus]>([])
        let consumer = Task {
            for await status in container.statusUpdates {
                received.withLock { $0.append(status) }
                got.open()
            }
            return received.withLock { $0 }
        }
        try await got.wait(timeout: .seconds(30), "the first status")
        let shutdown = Task { try await container.shutdown() }
        if held {
            // The consumer has taken a shutDown status while the instance is still closing.
            try await withTimeout(.seconds(30), "the consumer to receive the shutdown's status") {
                while !received.withLock({ $0.contains { $0.state == .shutDown } }) { await Task.yield() }
            }
            release.open()
        }
        _ = await first.result
        _ = try await withTimeout(.seconds(30), "shutdown") { try await shutdown.value }
        let seen = try await withTimeout(.seconds(30), "the status stream to end") { await consumer.value }
        let final = container.status
        let last = try #require(seen.last)
        #expect(last.state == .shutDown && final.state == .shutDown)
        #expect(
            last.openScopes == final.openScopes,
            "last status given lists open scopes \(last.openScopes); the container's final status \(final.openScopes)")
        let late = try await withTimeout(.seconds(30), "a late iteration") {
            var late: [ContainerStatus] = []
            for await status in container.statusUpdates { late.append(status) }
            return late
        }
        #expect(late.count == 1 && late.first?.openScopes == final.openScopes, "\(late.map(\.openScopes))")
    }
}
