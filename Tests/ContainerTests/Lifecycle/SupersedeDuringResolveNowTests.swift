import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

@Suite("Lifecycle: supersession while a scope's resolveNow holds a node")
struct SupersedeDuringResolveNowTests {
    private func graph(_ probe: Probe) throws -> ServiceGraph {
        try ServiceGraph(
            [probe.sync("settings"), probe.sync("router", ["settings"], lifetime: .scope("scene"))], scopes: ["scene"])
    }

    @Test(
        "an app reset retiring what a held scoped node uses: scoped value torn down first, each once; the instance rebuilds"
    )
    func resetDuringScopedResolveNow() async throws {
        let probe = Probe()
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: try graph(probe), trace: [watcher])
        let scene = try container.openScope("scene", id: "w1")
        _ = try await offThePool { try container.resolveNow(key("settings")) }
        let gate = probe.hold("router")
        let first = Task { try await offThePool { try scene.resolveNow(key("router")) } }
        try await offThePool { try gate.waitUntilReached() }
        let reset = Task { try await container.reset(invalidating: ["settings"]) }
        try await waitForTrace("the reset", watcher, releasingOnFailure: gate) { events in
            events.contains { $0.kind.name == "generation.reset" && $0.scope == nil }
        }
        gate.open()
        let result = await first.result
        _ = try await withTimeout(.seconds(30), "reset") { try await reset.value }
        let again = try await withTimeout(.seconds(30), "the instance again") { try await scene.start() }
        #expect(again.appGeneration == 2)
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        #expect(probe.unbalanced().isEmpty, "\(probe.unbalanced()) \(probe.log.entries) \(result)")
        let entries = probe.log.entries
        let router = entries.firstIndex { $0.hasPrefix("tear router g1") }
        let settings = entries.firstIndex { $0 == "tear settings g1" }
        #expect(router != nil && settings != nil && router! < settings!, "\(entries)")
        if case .success(let value) = result {
            #expect(value.generation == 1)
        }
    }

    @Test("a reload that removes the scope while its instance's resolveNow holds a node: closed, torn down once")
    func reloadRemovesScopeDuringResolveNow() async throws {
        let probe = Probe()
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: try graph(probe), trace: [watcher])
        let scene = try container.openScope("scene", id: "w1")
        let gate = probe.hold("router")
        let first = Task { try await offThePool { try scene.resolveNow(key("router")) } }
        try await offThePool { try gate.waitUntilReached() }
        let reload = Task { try await container.reload(try ServiceGraph([probe.sync("settings")])) }
        try await waitForTrace("the reload", watcher, releasingOnFailure: gate) { events in
            events.contains { $0.kind.name == "generation.reset" && $0.scope == nil }
        }
        gate.open()
        let result = await first.result
        let report = try await withTimeout(.seconds(30), "reload") { try await reload.value }
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        #expect(probe.unbalanced().isEmpty, "\(probe.unbalanced()) \(probe.log.entries) \(result) \(report)")
        let mine = watcher.events.filter { $0.scope == "scene#w1" }.map(\.kind.name)
        // Trace format: only its teardowns and the end of a provider still running follow `scope.closed`.
        #expect(mine.contains("scope.closed"))
        #expect(mine.drop { $0 != "scope.closed" }.dropFirst().allSatisfy(lateEvents.contains), "\(mine)")
    }
}
