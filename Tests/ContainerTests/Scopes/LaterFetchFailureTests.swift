import ContainerTesting
import Testing

@testable import Container

/// A scope instance's build takes a second fetch of app values for a later request (a nested
/// instance asking its parent for an app service the parent's own services do not use). That
/// fetch failing fails the requests that need the failed service only: the instance's own
/// `start()` succeeds, and a node that succeeded meanwhile is never run again in the generation
/// (Coordinator rules: what succeeded in an attempt is not run again).
@Suite("Scope instances: a later fetch that fails")
struct LaterFetchFailureTests {
    @Test(
        "a nested instance's fetch of a failing app service fails the nested start only; the parent's store runs once")
    func laterFetchFails() async throws {
        let gate = Gate()
        let storeStarted = Gate()
        let storeRuns = Locked<[Int]>([])
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("settings")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("router"), start: .lazy) { _ in throw TestError("router is down") },
                ServiceSpec(ServiceKey<Int>("store"), dependsOn: ["settings"], lifetime: .scope("account")) { context in
                    storeRuns.withLock { $0.append(context.runInGeneration) }
                    storeStarted.open()
                    await gate.wait()
                    return 2
                },
                ServiceSpec(ServiceKey<Int>("window"), dependsOn: ["store", "router"], lifetime: .scope("scene")) { c in
                    try c[ServiceKey<Int>("store")] + c[ServiceKey<Int>("router")]
                },
            ], scopes: ["account", .init("scene", parent: "account")])
        let trace = TraceWatcher()
        let container = ServiceContainer(graph: graph, trace: [trace])
        let account = try container.openScope("account", id: "ada")
        let scene = try account.openScope("scene", id: "w")
        let accountStart = Task { try await account.start() }
        try await storeStarted.wait(timeout: .seconds(30), "the account's store to start")
        // The scene asks the account for store and router: the account's build, store still
        // running, fetches router from the app, whose build of it fails.
        let sceneStart = Task { try await scene.start() }
        try await trace.wait(for: "the app's router to fail") { events in
            events.contains { event in
                guard event.scope == nil, case .nodeFailed(node: "router", _, _, _) = event.kind else { return false }
                return true
            }
        }
        gate.open()
        let accountResult = try await withTimeout(.seconds(30), "the account's start") {
            do { return Result<AppServices, any Error>.success(try await accountStart.value) } catch {
                return .failure(error)
            }
        }
        if case .failure(let error) = accountResult {
            Issue.record("the account's own start() needs only store and settings, yet failed: \(error)")
        }
        let sceneError = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "the scene's start") { try await sceneStart.value }
        }
        #expect(sceneError?.message.contains("router is down") == true, "\(sceneError?.message ?? "")")
        // The account again: its store succeeded in this generation already.
        _ = try await withTimeout(.seconds(30), "the account's second start") { try await account.start() }
        #expect(
            storeRuns.withLock { $0 } == [1],
            "store ran with runInGeneration \(storeRuns.withLock { $0 }) in generation \(account.generation)")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }
}
