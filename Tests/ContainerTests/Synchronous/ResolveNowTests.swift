import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// A gate a synchronous provider blocks its thread on, until opened (or a minute passes: then
/// the provider fails, and so does the test).
final class ThreadGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let reached = DispatchSemaphore(value: 0)

    func open() { semaphore.signal() }

    /// Blocks until opened; tells ``waitUntilReached()`` first.
    func pass() throws {
        reached.signal()
        guard semaphore.wait(timeout: .now() + 60) == .success else { throw TestError("the gate never opened") }
    }

    /// Blocks until a provider reached the gate.
    func waitUntilReached() throws {
        guard reached.wait(timeout: .now() + 60) == .success else { throw TestError("nobody reached the gate") }
    }
}

/// The launch tier of an app: `settings` (synchronous) <- `notificationDelegate` and
/// `taskRegistrar` (synchronous), `database` (async) <- `feed`. Counts provider calls and the
/// threads they ran on.
struct SyncApp: Sendable {
    static let settings = ServiceKey<Built>("settings")
    static let delegate = ServiceKey<Built>("notificationDelegate")
    static let registrar = ServiceKey<Built>("taskRegistrar")
    static let database = ServiceKey<Built>("database")
    static let feed = ServiceKey<Built>("feed")

    let calls = Locked<[String: Int]>([:])
    let threads = Locked<[String: UInt]>([:])
    let torn = OrderLog()
    let gates = Locked<[String: ThreadGate]>([:])
    let failures = Locked<[String: FailureKind]>([:])

    func count(_ name: String) -> Int { calls.withLock { $0[name] ?? 0 } }
    func thread(_ name: String) -> UInt? { threads.withLock { $0[name] } }

    func hold(_ name: String) -> ThreadGate {
        let gate = ThreadGate()
        gates.withLock { $0[name] = gate }
        return gate
    }

    private func synchronous(_ key: ServiceKey<Built>, _ dependsOn: [String] = []) -> ServiceSpec {
        ServiceSpec.synchronous(
            key, dependsOn: dependsOn, tearDown: { [torn] in torn.append($0.service) }
        ) { [self] context in
            calls.withLock { $0[key.name, default: 0] += 1 }
            threads.withLock { $0[key.name] = currentThread() }
            if let gate = gates.withLock({ $0.removeValue(forKey: key.name) }) { try gate.pass() }
            if let kind = failures.withLock({ $0.removeValue(forKey: key.name) }) {
                throw Classified(failureKind: kind)
            }
            for name in dependsOn { _ = try context[ServiceKey<Built>(name)] }
            return Built(service: key.name, generation: context.generation, instance: context.scopeInstance)
        }
    }

    func specs() -> [ServiceSpec] {
        [
            synchronous(Self.settings),
            synchronous(Self.delegate, ["settings"]),
            synchronous(Self.registrar, ["settings"]),
            ServiceSpec(Self.database, dependsOn: ["settings"], tearDown: { [torn] in torn.append($0.service) }) {
                [calls] context in
                calls.withLock { $0["database", default: 0] += 1 }
                return Built(service: "database", generation: context.generation, instance: nil)
            },
            synchronous(Self.feed, ["database"]),
        ]
    }

    func graph() throws -> ServiceGraph { try ServiceGraph(specs()) }
}

/// The calling thread's identity.
func currentThread() -> UInt { UInt(bitPattern: Int(bitPattern: pthread_self())) }

@Suite("resolveNow: synchronous services built on the caller's thread (Launch tiers)")
struct ResolveNowTests {
    @Test("resolveNow builds the key's closure on the calling thread, once; later requests reuse it")
    func buildsOnTheCallersThread() async throws {
        let app = SyncApp()
        let container = ServiceContainer(graph: try app.graph())
        let (delegate, thread) = try await offThePool {
            (try container.resolveNow(SyncApp.delegate), currentThread())
        }
        #expect(delegate.service == "notificationDelegate" && delegate.generation == 1)
        #expect(app.thread("settings") == thread && app.thread("notificationDelegate") == thread)
        #expect(app.count("database") == 0 && app.count("taskRegistrar") == 0, "only its closure")
        // Built and published: the same value, without building again.
        let again = try await offThePool { try container.resolveNow(SyncApp.delegate) }
        #expect(again === delegate)
        let snapshot = try await container.start()
        #expect(try snapshot[SyncApp.delegate] === delegate)
        #expect(app.count("settings") == 1 && app.count("notificationDelegate") == 1 && app.count("feed") == 1)
        // The values are the generation's: a reset tears them down with the rest, dependents first.
        _ = try await container.reset()
        let torn = app.torn.entries
        #expect(Set(torn) == ["settings", "notificationDelegate", "taskRegistrar", "database", "feed"])
        #expect(torn.firstIndex(of: "notificationDelegate")! < torn.firstIndex(of: "settings")!)
    }

    @Test("a closure with an asynchronous service is refused, naming it; nothing is built")
    func asynchronousClosure() async throws {
        let app = SyncApp()
        let container = ServiceContainer(graph: try app.graph())
        let error = await #expect(throws: ContainerError.self) {
            try await offThePool { try container.resolveNow(SyncApp.feed) }
        }
        #expect(error?.code == .notSynchronous)
        #expect(error?.message.contains("depends on 'database', whose provider 'closure' is asynchronous") == true)
        #expect(app.count("settings") == 0 && app.count("database") == 0)
        let unknown = await #expect(throws: AppServices.LookupError.self) {
            try await offThePool { try container.resolveNow(ServiceKey<Built>("setings")) }
        }
        #expect(unknown != nil)
    }

    @Test("sync: true has validation check the closure, naming the asynchronous service and the place")
    func syncValidation() throws {
        var specs = SyncApp().specs()
        specs[4].sync = true
        specs[4].location = ConfigLocation(file: "app.json", keyPath: "services[4]")
        specs[1].sync = true
        let error = #expect(throws: GraphError.self) { try ServiceGraph(specs) }
        #expect(error?.issues.count == 1)
        #expect(error?.issues.first?.code == .notSynchronous && error?.issues.first?.service == "feed")
        #expect(error?.issues.first?.location.keyPath == "services[4].sync")
        #expect(error?.issues.first?.message.contains("depends on 'database'") == true)
    }

    @Test("threads racing for one node: it runs once; each waits for that node, then shares it")
    func racingThreads() async throws {
        let app = SyncApp()
        let gate = app.hold("settings")
        let container = ServiceContainer(graph: try app.graph())
        let first = Task { try await offThePool { try container.resolveNow(SyncApp.delegate) } }
        try await offThePool { try gate.waitUntilReached() }
        // Settings runs on the first thread: the others wait for it, and one builds the registrar.
        let others = (0..<8).map { index in
            Task {
                try await offThePool {
                    try container.resolveNow(index.isMultiple(of: 2) ? SyncApp.delegate : SyncApp.registrar)
                }
            }
        }
        let asynchronous = Task { try await container.start(needs: [SyncApp.registrar.erased]) }
        gate.open()
        let delegate = try await withTimeout { try await first.value }
        for (index, other) in others.enumerated() {
            let value = try await withTimeout { try await other.value }
            if index.isMultiple(of: 2) { #expect(value === delegate) }
        }
        _ = try await withTimeout { try await asynchronous.value }
        #expect(app.count("settings") == 1 && app.count("notificationDelegate") == 1 && app.count("taskRegistrar") == 1)
    }

    @Test("from a task, resolveNow never blocks: waiting for another worker's node is an error")
    func taskDoesNotBlock() async throws {
        let app = SyncApp()
        let gate = app.hold("settings")
        let container = ServiceContainer(graph: try app.graph())
        let first = Task { try await offThePool { try container.resolveNow(SyncApp.delegate) } }
        try await offThePool { try gate.waitUntilReached() }
        let error = #expect(throws: ContainerError.self) { try container.resolveNow(SyncApp.registrar) }
        #expect(error?.code == .notSynchronous && error?.message.contains("await service(_:)") == true)
        gate.open()
        _ = try await withTimeout { try await first.value }
        // Nothing waits any more: the task builds what is left on its own thread.
        #expect(try container.resolveNow(SyncApp.registrar).service == "taskRegistrar")
        #expect(app.count("settings") == 1)
        #expect(container.status.waitingCallers == 0)
    }

    @Test("a failure answers the caller like any build's; a transient one is retried by the next call")
    func failures() async throws {
        let app = SyncApp()
        app.failures.withLock { $0["settings"] = .transient }
        let container = ServiceContainer(graph: try app.graph())
        let error = await #expect(throws: ContainerError.self) {
            try await offThePool { try container.resolveNow(SyncApp.delegate) }
        }
        #expect(error?.code == .buildFailed && error?.failure == .transient)
        #expect(app.count("notificationDelegate") == 0)
        let delegate = try await offThePool { try container.resolveNow(SyncApp.delegate) }
        #expect(delegate.generation == 1 && app.count("settings") == 2)
    }

    @Test("inside a provider, resolveNow of a synchronous service nobody builds yet builds it there")
    func insideAProvider() async throws {
        let app = SyncApp()
        let holder = Locked<ServiceContainer?>(nil)
        let reader = ServiceKey<Built>("reader")
        let graph = try ServiceGraph(
            app.specs() + [
                ServiceSpec(reader) { context in
                    guard let container = holder.withLock({ $0 }) else { throw TestError("no container") }
                    let registrar = try container.resolveNow(SyncApp.registrar)
                    return Built(service: "reader:" + registrar.service, generation: context.generation, instance: nil)
                }
            ])
        let container = ServiceContainer(graph: graph)
        holder.withLock { $0 = container }
        let snapshot = try await withTimeout { try await container.start(needs: [reader.erased]) }
        #expect(try snapshot[reader].service == "reader:taskRegistrar")
        #expect(app.count("taskRegistrar") == 1 && app.count("settings") == 1)
    }

    @Test("a synchronous provider that resolveNow runs, asking for its own dependent, gets an error, not a deadlock")
    func providerAskingForItsDependent() async throws {
        let holder = Locked<ServiceContainer?>(nil)
        let asked = Locked<[String]>([])
        let first = ServiceKey<Built>("first")
        let second = ServiceKey<Built>("second")
        let graph = try ServiceGraph([
            ServiceSpec.synchronous(first) { context in
                guard let container = holder.withLock({ $0 }) else { throw TestError("no container") }
                // `second` needs this very node, which this thread is making: waiting would never end.
                do {
                    _ = try container.resolveNow(second)
                    asked.withLock { $0.append("resolved") }
                } catch let error as ContainerError {
                    asked.withLock { $0.append("\(error.code)") }
                }
                return Built(service: "first", generation: context.generation, instance: nil)
            },
            ServiceSpec.synchronous(second, dependsOn: ["first"]) { context in
                Built(service: "second:" + (try context[first]).service, generation: context.generation, instance: nil)
            },
        ])
        let container = ServiceContainer(graph: graph)
        holder.withLock { $0 = container }
        let value = try await withTimeout { try await offThePool { try container.resolveNow(second) } }
        #expect(value.service == "second:first")
        #expect(asked.withLock { $0 } == ["notSynchronous"])
        #expect(container.status.waitingCallers == 0)
    }

    @Test("a scope instance builds its synchronous services and its app's on the caller's thread")
    func scopeInstance() async throws {
        let app = SyncApp()
        let router = ServiceKey<Built>("router")
        let graph = try ServiceGraph(
            app.specs() + [
                ServiceSpec.synchronous(router, dependsOn: ["settings"], lifetime: .scope("scene")) { context in
                    Built(service: "router", generation: context.generation, instance: context.scopeInstance)
                }
            ], scopes: ["scene"])
        let container = ServiceContainer(graph: graph)
        let scene = try container.openScope("scene", id: "window-1")
        let (value, thread) = try await offThePool { (try scene.resolveNow(router), currentThread()) }
        #expect(value.instance == "scene#window-1" && app.thread("settings") == thread)
        #expect(try scene.resolveNow(SyncApp.settings) === container.resolveNow(SyncApp.settings))
        #expect(app.count("settings") == 1)
        _ = try await scene.close()
        #expect(throws: ContainerError.self) { try scene.resolveNow(router) }
    }

    // A thread comes first: the held node blocks the thread that runs it, and the pool's few
    // threads must never be the ones blocked (a task's build would run it there).
    @Test(
        "two threads and a task, in every order after a thread that runs the held shared node: each node runs once",
        arguments: [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0]])
    func everyOrder(order: [Int]) async throws {
        let app = SyncApp()
        let gate = app.hold("settings")
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: try app.graph(), trace: [watcher])
        var callers: [Task<Built, any Error>] = []
        for (position, caller) in order.enumerated() {
            let task: Task<Built, any Error>
            switch caller {
            case 0: task = Task { try await offThePool { try container.resolveNow(SyncApp.delegate) } }
            case 1: task = Task { try await offThePool { try container.resolveNow(SyncApp.registrar) } }
            default: task = Task { try await container.start(needs: [SyncApp.feed.erased])[SyncApp.feed] }
            }
            callers.append(task)
            // The first caller starts the build, which runs the held settings; the others join it.
            if position == 0 { try await offThePool { try gate.waitUntilReached() } }
        }
        // Every caller joined while the held node runs.
        try await watcher.wait(for: "the three callers to join") { events in
            events.count { $0.kind.name == "caller.joined" } >= 3
        }
        #expect(app.count("settings") == 1 && !watcher.events.contains { $0.kind.name == "node.succeeded" })
        gate.open()
        for caller in callers { _ = try await withTimeout { try await caller.value } }
        for name in ["settings", "notificationDelegate", "taskRegistrar", "database", "feed"] {
            #expect(app.count(name) == 1, "\(name) in order \(order)")
        }
    }
}
