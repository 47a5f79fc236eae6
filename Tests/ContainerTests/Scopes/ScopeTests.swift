import ContainerTesting
import Synchronization
import TestSupport
import Testing

@testable import Container

extension ScopeParameters.Key where Value == String {
    static let itemID = Self("itemID")
}

/// A value that knows its service, generation and (for scoped values) its scope instance.
final class Built: Sendable {
    let service: String
    let generation: Int
    let instance: String?
    init(service: String, generation: Int, instance: String?) {
        self.service = service
        self.generation = generation
        self.instance = instance
    }
}

extension ServiceKey where Value == Built {
    static func built(_ name: String) -> ServiceKey<Built> { ServiceKey(name) }
}

/// The app of the scope tests: configuration <- database <- session (app); a `scene` scope whose
/// `router` uses configuration and session; a `push` scope whose `detail` uses database and the
/// push's item id; a `widget` scope whose `panel` uses configuration only.
struct ScopedApp: Sendable {
    let calls = Locked<[String: Int]>([:])
    let torn = OrderLog()
    let gates = Locked<[String: Gate]>([:])
    let starts = Locked<[String: Gate]>([:])

    /// A gate the provider of `service` waits on in generation 1 of its coordinator.
    func hold(_ service: String) -> Gate {
        let gate = Gate()
        gates.withLock { $0[service] = gate }
        return gate
    }

    /// Opens when the provider of `service` first starts.
    func started(_ service: String) -> Gate {
        starts.withLock { starts in
            if let gate = starts[service] { return gate }
            let gate = Gate()
            starts[service] = gate
            return gate
        }
    }

    func count(_ service: String) -> Int { calls.withLock { $0[service] ?? 0 } }

    private func spec(_ name: String, dependsOn: [String] = [], lifetime: ServiceSpec.Lifetime = .app) -> ServiceSpec {
        ServiceSpec(
            .built(name), dependsOn: dependsOn, lifetime: lifetime,
            tearDown: { [torn] value in torn.append("\(value.instance.map { "\($0)/" } ?? "")\(value.service)") }
        ) { [calls, gates, self] context in
            calls.withLock { $0[name, default: 0] += 1 }
            started(name).open()
            if context.generation == 1, let gate = gates.withLock({ $0[name] }) { try await gate.cancellableWait() }
            if name == "detail" { _ = try context.parameter(.itemID) }
            return Built(service: name, generation: context.generation, instance: context.scopeInstance)
        }
    }

    func graph() throws -> ServiceGraph {
        try ServiceGraph(
            [
                spec("configuration"),
                spec("database", dependsOn: ["configuration"]),
                spec("session", dependsOn: ["database"]),
                spec("router", dependsOn: ["configuration", "session"], lifetime: .scope("scene")),
                spec("detail", dependsOn: ["database"], lifetime: .scope("push")),
                spec("panel", dependsOn: ["configuration"], lifetime: .scope("widget")),
            ], scopes: ["scene", "push", "widget"])
    }
}

@Suite("Scopes")
struct ScopeTests {
    @Test("Validation: undeclared scope, captive dependency, cross-scope edge, entry point outside its scope")
    func validation() throws {
        struct Reader: EntryPoint {
            let id = "deeplink"
            var requirements: [AnyServiceKey] { [ServiceKey<Int>("router").erased] }
            func run(_ services: ScopedServices) async throws {}
        }
        let here = ConfigLocation(file: "app.json", keyPath: "entryPoints[0]")
        func spec(_ name: String, _ dependsOn: [String] = [], _ lifetime: ServiceSpec.Lifetime = .app) -> ServiceSpec {
            var spec = ServiceSpec(
                name: name, provider: ClosureProvider(id: "c") { _ in 1 }, dependsOn: dependsOn,
                location: ConfigLocation(file: "app.json", keyPath: "services[\(name)]"))
            spec.lifetime = lifetime
            return spec
        }
        #expect {
            try ServiceGraph(
                [
                    spec("app"),
                    spec("router", ["app"], .scope("scene")),
                    spec("feed", ["router"]),
                    spec("detail", ["router"], .scope("push")),
                    spec("typo", [], .scope("scen")),
                ],
                requirements: [
                    ServiceGraph.Requirement(
                        reader: "entry point 'deeplink'", keys: Reader().requirements, location: here)
                ],
                scopes: ["scene", "push", "bad#name"])
        } throws: { error in
            let issues = (error as? GraphError)?.issues ?? []
            let codes = issues.map(\.code)
            guard codes.count == 5 else { return false }
            let captive = issues.first { $0.code == .captiveDependency }
            let cross = issues.first { $0.code == .crossScopeDependency }
            let undeclared = issues.first { $0.code == .undeclaredScope }
            let mismatch = issues.first { $0.code == .scopeMismatch }
            return issues.contains { $0.code == .invalidScope && $0.message.contains("'bad#name'") }
                && captive?.location.keyPath == "services[feed].dependsOn[0]"
                && captive?.message.contains("(declared at app.json: services[router])") == true
                && cross?.location.keyPath == "services[detail].dependsOn[0]"
                && undeclared?.message.contains("did you mean 'scene'?") == true
                && undeclared?.location.keyPath == "services[typo].scope"
                && mismatch?.location == here && mismatch?.message.contains("does not run in a scope") == true
        }
    }

    @Test("1,000 concurrent start() on one instance share one build; the app graph is built once")
    func oneBuildPerInstance() async throws {
        let app = ScopedApp()
        let gate = app.hold("router")
        let container = ServiceContainer(graph: try app.graph())
        let scene = try container.openScope("scene", id: "window-1")
        let callers = (0..<1_000).map { _ in Task { try await scene.start() } }
        // Every caller waits on the same build (its router is held); then it completes.
        try await withTimeout(.seconds(60), "the router to start") { await app.started("router").wait() }
        gate.open()
        var snapshots = Set<ObjectIdentifier>()
        for caller in callers { snapshots.insert(ObjectIdentifier(try await withTimeout { try await caller.value })) }
        #expect(snapshots.count == 1)
        #expect(app.count("router") == 1 && app.count("configuration") == 1 && app.count("session") == 1)
    }

    @Test("100 instances opened during the app's cold start: the app is built once, each instance once")
    func manyInstancesDuringColdStart() async throws {
        let app = ScopedApp()
        let gate = app.hold("session")
        let container = ServiceContainer(graph: try app.graph())
        let launch = Task { try await container.start() }
        let instances = try (0..<100).map { try container.openScope("scene", id: "window-\($0)") }
        let callers = instances.map { instance in Task { try await instance.start() } }
        try await withTimeout(.seconds(60), "the session to start") { await app.started("session").wait() }
        gate.open()
        _ = try await withTimeout { try await launch.value }
        for (instance, caller) in zip(instances, callers) {
            let snapshot = try await withTimeout { try await caller.value }
            #expect(try snapshot[.built("router")].instance == instance.label)
        }
        #expect(app.count("session") == 1 && app.count("configuration") == 1)
        #expect(app.count("router") == 100)
        try await container.shutdown()
        #expect(app.torn.entries.filter { $0.hasSuffix("router") }.count == 100)
    }

    @Test("Parameters: two push instances get different details; a missing parameter fails its node permanently")
    func parameters() async throws {
        let app = ScopedApp()
        let container = ServiceContainer(graph: try app.graph())
        let first = try container.openScope("push", id: "n-1", parameters: [.set(.itemID, to: "A-17")])
        let second = try container.openScope("push", id: "n-2", parameters: [.set(.itemID, to: "B-3")])
        let one = try await first.start()
        let two = try await second.start()
        #expect(try one[.built("detail")] !== two[.built("detail")])
        #expect(try one[.built("detail")].instance == "push#n-1" && two[.built("detail")].instance == "push#n-2")
        #expect(try one[.built("database")] === two[.built("database")], "one app generation under both")

        let missing = try container.openScope("push", id: "n-3")
        let error = await #expect(throws: ContainerError.self) { try await missing.start() }
        #expect(error?.failure == .permanent)
        guard case .failed(let failure)? = error?.report?.outcome(of: "detail") else { return fail("detail failed") }
        #expect(failure.kind == .permanent)
        #expect(failure.message.contains("'itemID'") && failure.message.contains("push#n-3"))
        // Sticky, like any permanent failure.
        await #expect(throws: ContainerError.self) { try await missing.start() }
        #expect(app.count("detail") == 3)
    }

    @Test("An app reset supersedes exactly the instances that use a retired service")
    func resetSupersedesUsers() async throws {
        let app = ScopedApp()
        let container = ServiceContainer(graph: try app.graph())
        let scene = try container.openScope("scene", id: "w")
        let widget = try container.openScope("widget", id: "w")
        let sceneSnapshot = try await scene.start()
        let widgetSnapshot = try await widget.start()
        let report = try await container.reset(invalidating: ["session"])
        // The reset reports the teardowns it caused, the superseded instance's first.
        #expect(report.tornDown.map(\.service) == ["router", "session"])
        #expect(report.tornDown.map(\.scope) == ["scene#w", nil])
        // The scene's router (which used the session) went first, once; the widget kept its snapshot.
        #expect(app.torn.entries == ["scene#w/router", "session"])
        #expect(scene.current == nil && scene.generation == 2)
        #expect(widget.current === widgetSnapshot)
        let rebuilt = try await scene.start()
        #expect(rebuilt !== sceneSnapshot && rebuilt.appGeneration == 2 && rebuilt.generation == 2)
        #expect(try rebuilt[.built("session")].generation == 2)
        #expect(app.count("router") == 2 && app.count("panel") == 1)
    }

    @Test("A build of a superseded instance never publishes (held mid-build, reset, released)")
    func supersededBuildNeverPublishes() async throws {
        let app = ScopedApp()
        let gate = app.hold("router")
        let recorder = TraceRecorder()
        let container = ServiceContainer(graph: try app.graph(), trace: [recorder])
        let scene = try container.openScope("scene", id: "w")
        let caller = Task { try await scene.start() }
        try await withTimeout(.seconds(60), "the router to start") { await app.started("router").wait() }
        let reset = Task { try await container.reset(invalidating: ["session"]) }
        let result = try await withTimeout { await caller.result }
        #expect((try? result.get()) == nil, "the waiter is superseded")
        gate.open()
        _ = try await withTimeout { try await reset.value }
        #expect(scene.current == nil)
        #expect(!recorder.events.contains { $0.scope == "scene#w" && $0.kind.name == "snapshot.published" })
        let next = try await scene.start()
        #expect(next.generation == 2 && next.appGeneration == 2)
    }

    @Test("An app failure fails the instance's callers with the same failure")
    func appFailureFailsScope() async throws {
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(.built("database")) { _ in throw Classified(failureKind: .permanent) },
                    ServiceSpec(.built("detail"), dependsOn: ["database"], lifetime: .scope("push")) { _ in
                        Built(service: "detail", generation: 1, instance: nil)
                    },
                ], scopes: ["push"]))
        let push = try container.openScope("push", id: "n")
        let scoped = await #expect(throws: ContainerError.self) { try await push.start() }
        let direct = await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(scoped?.code == .buildFailed && scoped?.message == direct?.message)
    }

    @Test("Closing an instance cancels its build; its waiters get closed; later calls are refused")
    func closeDuringBuild() async throws {
        let app = ScopedApp()
        _ = app.hold("router")
        let container = ServiceContainer(graph: try app.graph())
        let scene = try container.openScope("scene", id: "w")
        let caller = Task { try await scene.start() }
        try await withTimeout(.seconds(60), "the router to start") { await app.started("router").wait() }
        try await scene.close()
        let result = try await withTimeout { await caller.result }
        #expect((result.error as? ContainerError)?.code == .closed)
        await #expect(throws: ContainerError.self) { try await scene.start() }
        await #expect(throws: ContainerError.self) { try await scene.close() }
        #expect(container.openScopes.isEmpty)
        // The same id can be opened again once closed.
        _ = try container.openScope("scene", id: "w")
    }

    @Test("Shutdown closes every instance first: scoped values go before the app values they use")
    func shutdownClosesScopesFirst() async throws {
        let app = ScopedApp()
        let container = ServiceContainer(graph: try app.graph())
        let push = try container.openScope("push", id: "n", parameters: [.set(.itemID, to: "A")])
        _ = try await push.start()
        try await container.shutdown()
        #expect(app.torn.entries == ["push#n/detail", "session", "database", "configuration"])
        #expect(throws: ContainerError.self) { try container.openScope("push", id: "m") }
    }

    @Test("Opening refuses unknown scopes (with a suggestion), duplicate and invalid ids")
    func openErrors() throws {
        let container = ServiceContainer(graph: try ScopedApp().graph())
        #expect(throws: ContainerError.self) { try container.openScope("scen", id: "a") }
        do {
            _ = try container.openScope("scen", id: "a")
        } catch {
            #expect(error.code == .unknownScope && error.message.contains("did you mean 'scene'?"))
        }
        _ = try container.openScope("scene", id: "a")
        #expect { try container.openScope("scene", id: "a") } throws: {
            ($0 as? ContainerError)?.code == .scopeAlreadyOpen
        }
        #expect { try container.openScope("scene", id: "") } throws: { ($0 as? ContainerError)?.code == .invalidScope }
        #expect { try container.openScope("scene", id: "a\u{0}b") } throws: {
            ($0 as? ContainerError)?.code == .invalidScope
        }
        // `#` and `/` build labels (`account#ada/scene#w1`): an id holding one could take another's.
        for id in ["ada/scene#w1", "a#b", "a/b"] {
            #expect { try container.openScope("scene", id: id) } throws: {
                guard let error = $0 as? ContainerError, error.code == .invalidScope else { return false }
                return error.message.contains("'#' or '/'")
            }
        }
        #expect(container.openScopes == ["scene#a"])
        let long = String(repeating: "x", count: ServiceContainer.maximumScopeIDLength + 1)
        #expect { try container.openScope("scene", id: long) } throws: {
            ($0 as? ContainerError)?.code == .invalidScope
        }
    }
}

extension Result {
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
