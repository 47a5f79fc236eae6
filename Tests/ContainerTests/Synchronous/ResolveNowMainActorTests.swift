import ContainerTesting
import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import Container

/// Runs `work` on the main actor from the main queue, outside any task (as UIKit calls
/// `didFinishLaunching`), and awaits it; fails after a minute.
private func onMainQueue<T: Sendable>(_ work: @escaping @MainActor @Sendable () throws -> T) async throws -> T {
    try await withTimeout(.seconds(60)) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.main.async {
                continuation.resume(with: Result { try MainActor.assumeIsolated { try work() } })
            }
        }
    }
}

/// Holds the main actor (a job of the main queue, outside any task) while `start` starts a
/// build, until `started` holds, then calls `ask` there: what it returned, or the code and message
/// of the `ContainerError` it threw. The build's result comes back once the main actor is free.
private func askHoldingTheMainActor<Started: Sendable>(
    whileStarting start: @escaping @Sendable () async throws -> Started,
    until started: @escaping @Sendable () -> Bool, _ what: String,
    ask: @escaping @MainActor @Sendable () throws -> Void
) async throws -> (said: String, started: Started) {
    let holding = Gate()
    let release = ThreadGate()
    let answer = Task {
        try await onMainQueue { () -> String in
            holding.open()
            try release.pass()
            let deadline = ContinuousClock.now + .seconds(60)
            while !started() {
                guard ContinuousClock.now < deadline else { throw TestError("\(what) never happened") }
            }
            do {
                try ask()
                return "resolved"
            } catch let error as ContainerError {
                return "\(error.code): \(error.message)"
            }
        }
    }
    try await holding.wait(timeout: .seconds(60))
    let build = Task { try await start() }
    release.open()
    let said = try await withTimeout(.seconds(60)) { try await answer.value }
    return (said, try await withTimeout(.seconds(60)) { try await build.value })
}

/// `settings` (synchronous, any thread) <- `theme` (synchronous, main actor); counts calls and
/// records the threads they ran on.
private struct MainActorTier: Sendable {
    static let settings = ServiceKey<Built>("settings")
    static let theme = ServiceKey<Built>("theme")

    let calls = Locked<[String: Int]>([:])
    let threads = Locked<[String: UInt]>([:])
    let torn = Locked<[String]>([])

    func count(_ name: String) -> Int { calls.withLock { $0[name] ?? 0 } }
    func thread(_ name: String) -> UInt? { threads.withLock { $0[name] } }

    private func ran(_ name: String) {
        calls.withLock { $0[name, default: 0] += 1 }
        threads.withLock { $0[name] = currentThread() }
    }

    func graph(themeDependsOnSettings: Bool = true) throws -> ServiceGraph {
        try ServiceGraph([
            ServiceSpec.synchronous(Self.settings) { [self] _ in
                ran("settings")
                return Built(service: "settings", generation: 1, instance: nil)
            },
            ServiceSpec.synchronous(
                mainActor: Self.theme, dependsOn: themeDependsOnSettings ? ["settings"] : [],
                tearDown: { [torn] value in
                    MainActor.preconditionIsolated()
                    torn.withLock { $0.append(value.service) }
                }
            ) { [self] context in
                MainActor.preconditionIsolated()
                ran("theme")
                if themeDependsOnSettings { _ = try context[Self.settings] }
                return Built(service: "theme", generation: context.generation, instance: nil)
            },
        ])
    }
}

/// Reads `theme` from code that is not isolated to the main actor (its `#isolation` is `nil`),
/// with the calling thread.
nonisolated private func resolveTheme(in container: ServiceContainer) throws -> (Built, UInt) {
    (try container.resolveNow(MainActorTier.theme), currentThread())
}

@Suite("resolveNow and main-actor services (Launch tiers)")
struct ResolveNowMainActorTests {
    @Test("on the main actor, resolveNow makes a synchronous main-actor service there, once")
    func onTheMainActor() async throws {
        let tier = MainActorTier()
        let container = ServiceContainer(graph: try tier.graph())
        let (theme, main) = try await onMainQueue { (try container.resolveNow(MainActorTier.theme), currentThread()) }
        #expect(theme.service == "theme")
        #expect(tier.thread("theme") == main && tier.thread("settings") == main, "both on the caller's thread")
        let snapshot = try await container.start()
        #expect(try snapshot[MainActorTier.theme] === theme)
        #expect(tier.count("theme") == 1 && tier.count("settings") == 1)
        // Torn down on the main actor (its teardown checks) like any main-actor value.
        _ = try await container.reset()
        #expect(tier.torn.withLock { $0 } == ["theme"])
    }

    @Test("off the main actor, the build makes the main-actor node on the main actor while the thread waits")
    func offTheMainActor() async throws {
        let tier = MainActorTier()
        let container = ServiceContainer(graph: try tier.graph())
        let (theme, caller) = try await withTimeout(.seconds(60)) {
            try await offThePool { (try container.resolveNow(MainActorTier.theme), currentThread()) }
        }
        #expect(theme.service == "theme")
        // Its provider checks it runs on the main actor (on Linux, the main queue's thread is a
        // worker thread once the test runner called dispatchMain, so threads cannot tell).
        #expect(tier.thread("theme") != caller, "the build's main-actor hop made it")
        #expect(tier.thread("settings") == caller, "the rest of the closure ran on the caller's thread")
        #expect(tier.count("theme") == 1 && tier.count("settings") == 1)
    }

    @Test(
        "nonisolated code on the main thread makes a synchronous main-actor service there, never waits for the main actor"
    )
    func nonisolatedOnTheMainThread() async throws {
        let tier = MainActorTier()
        let container = ServiceContainer(graph: try tier.graph())
        let (theme, caller) = try await withTimeout(.seconds(60)) {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.main.async {
                    continuation.resume(with: Result { try resolveTheme(in: container) })
                }
            }
        }
        #expect(theme.service == "theme")
        #expect(tier.thread("theme") == caller, "made on the calling (main) thread, not handed to the main actor")
        #expect(tier.count("theme") == 1 && tier.count("settings") == 1)
    }

    @Test("a caller on the main actor never waits for a main-actor node made elsewhere: it throws, nothing hangs")
    func mainActorNeverWaitsForItself() async throws {
        let tier = MainActorTier()
        let container = ServiceContainer(graph: try tier.graph(themeDependsOnSettings: false))
        // The main actor is held (by a job of the main queue) while a build launches `theme`:
        // the build's main-actor hop queues behind that job, and the job asks for `theme`.
        let (said, snapshot) = try await askHoldingTheMainActor(
            whileStarting: { try await container.start() },
            until: { container.status.service("theme")?.state == .building }, "theme building"
        ) { _ = try container.resolveNow(MainActorTier.theme) }
        #expect(said.hasPrefix("notSynchronous") && said.contains("another worker"), "\(said)")
        // Once the main actor is free, the build's hop makes it, once.
        #expect(try snapshot[MainActorTier.theme].service == "theme")
        #expect(tier.count("theme") == 1)
        #expect(container.status.waitingCallers == 0)
    }

    @Test(
        "on the main actor, a scope instance whose build waits for app values that need the main actor throws, nothing hangs"
    )
    func scopeWaitingForTheMainActorAbove() async throws {
        let settings = ServiceKey<Built>("settings")
        let theme = ServiceKey<Built>("theme")
        let router = ServiceKey<Built>("router")
        let badge = ServiceKey<Built>("badge")
        let graph = try ServiceGraph(
            [
                ServiceSpec.synchronous(settings, start: .lazy) { context in
                    Built(service: "settings", generation: context.generation, instance: nil)
                },
                ServiceSpec.synchronous(mainActor: theme, start: .lazy) { context in
                    Built(service: "theme", generation: context.generation, instance: nil)
                },
                ServiceSpec(router, dependsOn: ["theme"], lifetime: .scope("scene")) { context in
                    Built(service: "router", generation: context.generation, instance: context.scopeInstance)
                },
                ServiceSpec.synchronous(badge, dependsOn: ["settings"], lifetime: .scope("scene"), start: .lazy) {
                    context in
                    Built(service: "badge", generation: context.generation, instance: context.scopeInstance)
                },
            ], scopes: ["scene"])
        let container = ServiceContainer(graph: graph)
        let scene = try container.openScope("scene", id: "w")
        // The main actor is held while the instance's build fetches `theme` from the app (whose
        // build needs the main actor); the holder then asks the instance for `badge`.
        let (said, snapshot) = try await askHoldingTheMainActor(
            whileStarting: { try await scene.start() }, until: { scene.core.awaitsAppValues }, "the fetch"
        ) { _ = try scene.resolveNow(badge) }
        #expect(said.hasPrefix("notSynchronous"), "\(said)")
        // Once the main actor is free, the instance's build ends, and badge can be read.
        #expect(try snapshot[router].service == "router")
        let value = try await withTimeout(.seconds(60)) { try await offThePool { try scene.resolveNow(badge) } }
        #expect(value.service == "badge")
    }
}
