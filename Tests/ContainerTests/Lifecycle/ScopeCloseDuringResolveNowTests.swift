import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// A scope instance closed (by close() or the app's shutdown) while resolveNow holds one of its
/// synchronous nodes on a thread (or an async provider still runs): the close is traced and the
/// instance refuses calls at once, it is no longer listed open, and only its teardowns and the
/// end of that provider follow its `scope.closed` (and the app's `container.shutdown`).
@Suite("Lifecycle: closing while resolveNow holds a scoped node")
struct ScopeCloseDuringResolveNowTests {
    /// A scope instance whose synchronous `router` is held on a thread by resolveNow.
    private func heldScene(_ probe: Probe, _ watcher: TraceWatcher) async throws -> (
        ServiceContainer, ScopeInstance, ThreadGate, Task<Built, any Error>
    ) {
        let gate = probe.hold("router")
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [probe.sync("settings"), probe.sync("router", ["settings"], lifetime: .scope("scene"))],
                scopes: ["scene"]), trace: [watcher])
        let scene = try container.openScope("scene", id: "w1")
        let first = Task { try await offThePool { try scene.resolveNow(key("router")) } }
        try await offThePool { try gate.waitUntilReached() }
        return (container, scene, gate, first)
    }

    /// ``heldScene(_:_:)``, and a close.
    private func closingScene(_ probe: Probe, _ watcher: TraceWatcher) async throws -> (
        ServiceContainer, ScopeInstance, ThreadGate, Task<Built, any Error>,
        Task<ServiceContainer.ResetReport, any Error>
    ) {
        let (container, scene, gate, first) = try await heldScene(probe, watcher)
        let close = Task { try await scene.close() }
        return (container, scene, gate, first, close)
    }

    /// Waits until the trace holds `event` (see ``waitForTrace(_:_:releasingOnFailure:until:)``).
    private func wait(for event: String, _ watcher: TraceWatcher, releasingOnFailure gate: ThreadGate) async throws {
        try await waitForTrace(event, watcher, releasingOnFailure: gate) { events in
            events.contains { $0.kind.name == event }
        }
    }

    @Test("scope resolveNow holding a scoped node while the instance closes: the closing instance is not listed open")
    func closingInstanceNotListed() async throws {
        let probe = Probe()
        let watcher = TraceWatcher()
        let (container, scene, gate, first, close) = try await closingScene(probe, watcher)
        // The close has begun: the instance refuses calls (its scope.closed is traced).
        try await wait(for: "scope.closed", watcher, releasingOnFailure: gate)
        await #expect(throws: ContainerError.self) { try await scene.start() }
        // Scopes.md: openInstances(of:) lists the open instances of a scope (not those closing).
        let listed = container.openInstances(of: "scene").map(\.label)
        // Its id stays taken until the close returns, and the refusal says why.
        let reopened = #expect(throws: ContainerError.self) { try container.openScope("scene", id: "w1") }
        #expect(reopened?.code == .scopeAlreadyOpen)
        #expect(
            reopened?.message.contains("'scene#w1' is closing; open it again once its close() has returned") == true)
        gate.open()
        _ = await first.result
        _ = try await withTimeout(.seconds(30), "close") { try await close.value }
        #expect(
            listed.isEmpty, "a closing instance (refusing calls, scope.closed traced) is still listed open: \(listed)")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        #expect(probe.unbalanced().isEmpty, "\(probe.unbalanced())")
    }

    @Test(
        "scope resolveNow holding a scoped node while the instance closes: only teardowns and the provider's end follow scope.closed"
    )
    func scopeClosedIsLastEvent() async throws {
        let probe = Probe()
        let watcher = TraceWatcher()
        let (container, _, gate, first, close) = try await closingScene(probe, watcher)
        try await wait(for: "scope.closed", watcher, releasingOnFailure: gate)
        gate.open()
        _ = await first.result
        _ = try await withTimeout(.seconds(30), "close") { try await close.value }
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        #expect(probe.unbalanced().isEmpty, "\(probe.unbalanced())")
        let mine = watcher.events.filter { $0.scope == "scene#w1" }.map(\.kind.name)
        // Trace format: only its teardowns and the end of a provider still running follow `scope.closed`.
        #expect(mine.contains("scope.closed"))
        #expect(
            mine.drop { $0 != "scope.closed" }.dropFirst().allSatisfy(lateEvents.contains),
            "events of scene#w1 after its scope.closed: \(mine)")
    }

    @Test(
        "app shutdown while a scope's resolveNow holds a scoped node: only teardowns and the provider's end follow container.shutdown, scoped values first"
    )
    func shutdownWhileScopedResolveNowHeld() async throws {
        let probe = Probe()
        let watcher = TraceWatcher()
        let (container, _, gate, first) = try await heldScene(probe, watcher)
        let shutdown = Task { try await container.shutdown() }
        try await wait(for: "container.shutdown", watcher, releasingOnFailure: gate)
        gate.open()
        _ = await first.result
        _ = try await withTimeout(.seconds(30), "shutdown") { try await shutdown.value }
        #expect(probe.unbalanced().isEmpty, "\(probe.unbalanced())")
        let entries = probe.log.entries
        let router = entries.firstIndex { $0.hasPrefix("tear router") }
        let settings = entries.firstIndex { $0.hasPrefix("tear settings") }
        #expect(router != nil && settings != nil && router! < settings!, "scoped value torn down first: \(entries)")
        let names = watcher.events.map { "\($0.kind.name)\($0.scope.map { " " + $0 } ?? "")" }
        // Trace format: only teardowns and the end of a provider still running follow `container.shutdown`.
        #expect(names.contains("container.shutdown"))
        let after = names.drop { $0 != "container.shutdown" }.dropFirst().map { String($0.prefix { $0 != " " }) }
        #expect(after.allSatisfy(lateEvents.contains), "events after container.shutdown: \(names)")
    }

    /// The same with an ordinary asynchronous scoped provider that does not stop at once when
    /// cancelled (a network call that finishes its request): `start()` runs it, `close()` races it.
    private func closingAsyncScene(_ watcher: TraceWatcher, _ log: OrderLog, _ release: Gate) async throws -> (
        ServiceContainer, ScopeInstance, Task<AppServices, any Error>, Task<ServiceContainer.ResetReport, any Error>
    ) {
        let reached = Gate()
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(key("settings")) { c in
                        Built(service: "settings", generation: c.generation, instance: nil)
                    },
                    ServiceSpec(
                        key("router"), dependsOn: ["settings"], lifetime: .scope("scene"),
                        tearDown: { _ in
                            log.append("tear router")
                        }
                    ) { c in
                        reached.open()
                        await release.wait()  // finishes its work whatever the cancellation
                        log.append("make router")
                        return Built(service: "router", generation: c.generation, instance: c.scopeInstance)
                    },
                ], scopes: ["scene"]), trace: [watcher])
        let scene = try container.openScope("scene", id: "w1")
        let first = Task { try await scene.start() }
        try await reached.wait(timeout: .seconds(30), "router to run")
        let close = Task { try await scene.close() }
        try await watcher.wait(for: "scope.closed", timeout: .seconds(30)) { events in
            events.contains { $0.kind.name == "scope.closed" }
        }
        return (container, scene, first, close)
    }

    @Test("an async scoped provider still running when the instance closes: the closing instance is not listed open")
    func closingInstanceNotListedAsync() async throws {
        let watcher = TraceWatcher()
        let log = OrderLog()
        let release = Gate()
        let (container, scene, first, close) = try await closingAsyncScene(watcher, log, release)
        await #expect(throws: ContainerError.self) { try await scene.start() }
        let listed = container.openInstances(of: "scene").map(\.label)
        let reopen = Result { try container.openScope("scene", id: "w1") }
        release.open()
        _ = await first.result
        _ = try await withTimeout(.seconds(30), "close") { try await close.value }
        #expect(
            listed.isEmpty,
            "a closing instance (refusing calls, scope.closed traced) is still listed open: \(listed); reopen: \(reopen)"
        )
        _ = try? await container.shutdown()
    }

    @Test(
        "an async scoped provider still running when the instance closes: only teardowns and the provider's end follow scope.closed"
    )
    func scopeClosedIsLastEventAsync() async throws {
        let watcher = TraceWatcher()
        let log = OrderLog()
        let release = Gate()
        let (container, _, first, close) = try await closingAsyncScene(watcher, log, release)
        release.open()
        _ = await first.result
        _ = try await withTimeout(.seconds(30), "close") { try await close.value }
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
        #expect(log.entries == ["make router", "tear router"], "\(log.entries)")
        let mine = watcher.events.filter { $0.scope == "scene#w1" }.map(\.kind.name)
        // Trace format: only its teardowns and the end of a provider still running follow `scope.closed`.
        #expect(mine.contains("scope.closed"))
        #expect(
            mine.drop { $0 != "scope.closed" }.dropFirst().allSatisfy(lateEvents.contains),
            "events of scene#w1 after its scope.closed: \(mine)")
    }
}
