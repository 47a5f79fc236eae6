import ContainerTesting
import Synchronization
import TestSupport
import Testing

@testable import Container

extension ScopeParameters.Key where Value == String {
    static let userID = Self("userID")
    static let windowID = Self("windowID")
}

/// The app of the nested scope tests: configuration <- database <- session, and theme (app);
/// `account` (accountStore <- session; userID) holds `scene` (router <- accountStore,
/// configuration, theme; windowID), which holds `detail` (detailView <- router, database).
/// `push` is a second top-level scope (pushView <- database).
struct NestedApp: Sendable {
    let calls = Locked<[String: Int]>([:])
    let torn = OrderLog()
    let gates = Locked<[String: Gate]>([:])
    let starts = Locked<[String: Gate]>([:])

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

    /// A gate the provider of `service` waits on (once).
    func hold(_ service: String) -> Gate {
        let gate = Gate()
        gates.withLock { $0[service] = gate }
        return gate
    }

    private func spec(_ name: String, _ dependsOn: [String] = [], _ lifetime: ServiceSpec.Lifetime = .app)
        -> ServiceSpec
    {
        ServiceSpec(
            .built(name), dependsOn: dependsOn, lifetime: lifetime,
            tearDown: { [torn] value in torn.append("\(value.instance.map { "\($0)/" } ?? "")\(value.service)") }
        ) { [calls, gates, self] context in
            calls.withLock { $0[name, default: 0] += 1 }
            started(name).open()
            if let gate = gates.withLock({ $0.removeValue(forKey: name) }) { try await gate.cancellableWait() }
            if name == "accountStore" { _ = try context.parameter(.userID) }
            // A nested instance reads its parents' parameters too.
            if name == "router" { _ = try context.parameter(.userID) + context.parameter(.windowID) }
            return Built(service: name, generation: context.generation, instance: context.scopeInstance)
        }
    }

    static let scopes: [ServiceGraph.Scope] = [
        "account", .init("scene", parent: "account"), .init("detail", parent: "scene"), "push",
    ]

    /// `detailReads`: the app service the detail view reads besides the router (a reload changes it).
    func specs(detailReads: String = "database") -> [ServiceSpec] {
        [
            spec("configuration"),
            spec("database", ["configuration"]),
            spec("session", ["database"]),
            spec("theme"),
            spec("accountStore", ["session"], .scope("account")),
            spec("router", ["accountStore", "configuration", "theme"], .scope("scene")),
            spec("detailView", ["router", detailReads], .scope("detail")),
            spec("pushView", ["database"], .scope("push")),
        ]
    }

    func graph(detailReads: String = "database") throws -> ServiceGraph {
        try ServiceGraph(specs(detailReads: detailReads), scopes: Self.scopes)
    }
}

@Suite("Nested scopes (Scopes)")
struct NestedScopeTests {
    @Test("A nested scope's part holds its own services, then what it uses of its chain, then what it hands on")
    func parts() throws {
        let graph = try NestedApp().graph()
        #expect(graph.parentScope(of: "scene") == "account" && graph.parentScope(of: "account") == nil)
        let account = try #require(graph.scopeParts["account"])
        let scene = try #require(account.scopeParts["scene"])
        let detail = try #require(scene.scopeParts["detail"])
        #expect(account.serviceNames == ["accountStore", "session", "configuration", "database", "theme"])
        #expect(account.builtCount == 1 && account.relayedFrom == 2, "session used; the rest relayed")
        #expect(scene.serviceNames == ["router", "configuration", "theme", "accountStore", "database"])
        #expect(scene.relayedFrom == 4)
        #expect(detail.serviceNames == ["detailView", "database", "router"])
        #expect(account.scopeNames == ["scene"] && scene.scopeNames == ["detail"] && detail.scopeNames.isEmpty)
        #expect(graph.scopeParts["scene"] === scene, "the graph finds every part by name")
        // Relayed services are never what an instance asks for itself.
        #expect(account.eagerSlots.slots.sorted() == [0, 1] || !account.declaresStartPolicies)
    }

    @Test("A chain builds each level once; labels name the chain; parameters are inherited")
    func chain() async throws {
        let app = NestedApp()
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let detail = try window.openScope("detail", id: "d")
        #expect(detail.label == "account#ada/scene#w1/detail#d")
        #expect(detail.parent == window && window.parent == account && account.parent == nil)
        #expect(detail.parameters[.userID] == "ada" && detail.parameters[.windowID] == "w1")

        let snapshot = try await withTimeout { try await detail.start() }
        #expect(try snapshot[.built("detailView")].instance == "account#ada/scene#w1/detail#d")
        let windowSnapshot = try await withTimeout { try await window.start() }
        let accountSnapshot = try await withTimeout { try await account.start() }
        #expect(try snapshot[.built("router")] === windowSnapshot[.built("router")], "the window's router")
        #expect(try windowSnapshot[.built("accountStore")] === accountSnapshot[.built("accountStore")])
        let appSnapshot = try await container.start()
        #expect(try snapshot[.built("database")] === appSnapshot[.built("database")])
        for service in ["configuration", "database", "session", "theme", "accountStore", "router", "detailView"] {
            #expect(app.count(service) == 1, "\(service) built once")
        }
        #expect(container.openScopes == ["account#ada", "account#ada/scene#w1", "account#ada/scene#w1/detail#d"])
        #expect(container.openInstances(of: "detail") == [detail])
        #expect(account.openInstances(of: "detail") == [detail] && account.openInstances(of: "scene") == [window])
        #expect(container.status.openScopes.count == 3)
    }

    @Test("A nested scope opens only from an instance of its parent; a top-level one only from the container")
    func whereScopesOpen() throws {
        let container = ServiceContainer(graph: try NestedApp().graph())
        let nested = #expect(throws: ContainerError.self) { try container.openScope("scene", id: "w") }
        #expect(nested?.code == .invalidScope && nested?.message.contains("nested in 'account'") == true)
        let account = try container.openScope("account", id: "ada")
        let topLevel = #expect(throws: ContainerError.self) { try account.openScope("push", id: "p") }
        #expect(topLevel?.code == .invalidScope && topLevel?.message.contains("from the container") == true)
        let skipping = #expect(throws: ContainerError.self) { try account.openScope("detail", id: "d") }
        #expect(skipping?.message.contains("nested in 'scene'") == true)
        let unknown = #expect(throws: ContainerError.self) { try account.openScope("scen", id: "w") }
        #expect(unknown?.code == .unknownScope && unknown?.message.contains("did you mean 'scene'") == true)
        _ = try account.openScope("scene", id: "w")
        #expect(throws: ContainerError.self) { try account.openScope("scene", id: "w") }
    }

    @Test("Closing a parent closes its children first: teardown child, then parent; each value once")
    func closeOrder() async throws {
        let app = NestedApp()
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let detail = try window.openScope("detail", id: "d")
        _ = try await withTimeout { try await detail.start() }
        let report = try await withTimeout { try await account.close() }
        #expect(
            app.torn.entries == [
                "account#ada/scene#w1/detail#d/detailView", "account#ada/scene#w1/router", "account#ada/accountStore",
            ])
        #expect(report.tornDown.map(\.service) == ["detailView", "router", "accountStore"])
        #expect(container.openScopes.isEmpty)
        await #expect(throws: ContainerError.self) { try await detail.start() }
        #expect(throws: ContainerError.self) { try window.openScope("detail", id: "d2") }
        // The app's values stay.
        #expect(try container.resolve(.built("database")).generation == 1)
        try await container.shutdown()
        #expect(app.torn.entries.count == 7, "each value torn down once")
    }

    @Test("An app reset that retires a service used down the chain supersedes each level, child first")
    func supersession() async throws {
        let app = NestedApp()
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let detail = try window.openScope("detail", id: "d")
        let push = try container.openScope("push", id: "p")
        let before = try await withTimeout { try await detail.start() }
        let windowBefore = try await withTimeout { try await window.start() }
        _ = try await withTimeout { try await push.start() }
        let accountBefore = try #require(account.current)
        // theme is used by the scene alone; the account hands it on and keeps its own values.
        let report = try await withTimeout { try await container.reset(invalidating: ["theme"]) }
        #expect(
            app.torn.entries == ["account#ada/scene#w1/detail#d/detailView", "account#ada/scene#w1/router", "theme"])
        #expect(report.tornDown.map(\.service) == ["detailView", "router", "theme"])
        #expect(push.current != nil, "an instance that uses nothing retired keeps its snapshot")
        let after = try await withTimeout { try await detail.start() }
        let windowAfter = try await withTimeout { try await window.start() }
        #expect(try windowAfter[.built("theme")] !== windowBefore[.built("theme")])
        #expect(try after[.built("router")] === windowAfter[.built("router")])
        #expect(try after[.built("database")] === before[.built("database")])
        #expect(app.count("theme") == 2 && app.count("router") == 2 && app.count("database") == 1)
        let accountAfter = try await withTimeout { try await account.start() }
        #expect(try accountAfter[.built("accountStore")] === accountBefore[.built("accountStore")])
        #expect(app.count("accountStore") == 1)

        // session is the account's own dependency: every level goes, child first, then the app's.
        let second = try await withTimeout { try await container.reset(invalidating: ["session"]) }
        #expect(
            second.tornDown.map(\.service) == ["detailView", "router", "accountStore", "session"],
            "\(second.tornDown.map(\.service))")
        _ = try await withTimeout { try await detail.start() }
        #expect(app.count("accountStore") == 2 && app.count("router") == 3 && app.count("detailView") == 3)
    }

    @Test("A nested instance waits for its parent's build and the app's; one build of each")
    func joinsParentBuild() async throws {
        let app = NestedApp()
        let gate = app.hold("session")
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let windows = try (0..<10).map {
            try account.openScope("scene", id: "w\($0)", parameters: [.set(.windowID, to: "w\($0)")])
        }
        let callers = windows.map { window in Task { try await window.start() } }
        let accountCaller = Task { try await account.start() }
        gate.open()
        for caller in callers { _ = try await withTimeout { try await caller.value } }
        _ = try await withTimeout { try await accountCaller.value }
        #expect(app.count("session") == 1 && app.count("accountStore") == 1 && app.count("router") == 10)
    }

    @Test("A reload that changes a nested scope rebuilds its instances from their rebuilt parents; others stay")
    func reloadNested() async throws {
        let app = NestedApp()
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let detail = try window.openScope("detail", id: "d")
        let push = try container.openScope("push", id: "p")
        _ = try await withTimeout { try await detail.start() }
        let pushBefore = try await withTimeout { try await push.start() }
        let report = try await withTimeout { try await container.reload(try app.graph(detailReads: "session")) }
        #expect(report.changes.changedScopes == ["account", "scene", "detail"])
        #expect(report.reloadedScopes == ["account#ada"])
        #expect(report.rebuilt == ["detailView"], "no app service changed")
        let after = try await withTimeout { try await detail.start() }
        #expect(try after[.built("session")].service == "session", "the new declaration reads the session")
        #expect(!after.contains("database"))
        #expect(push.current === pushBefore, "an unchanged scope's instance keeps its snapshot")
        #expect(detail.label == "account#ada/scene#w1/detail#d" && container.openScopes.count == 4)
        #expect(app.count("detailView") == 2 && app.count("database") == 1)
    }

    @Test("A reload that removes a nested scope closes its instances; their parents stay open")
    func reloadRemovesNested() async throws {
        let app = NestedApp()
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let detail = try window.openScope("detail", id: "d")
        _ = try await withTimeout { try await detail.start() }
        let specs = app.specs().filter { $0.name != "detailView" }
        let withoutDetail = try ServiceGraph(specs, scopes: ["account", .init("scene", parent: "account"), "push"])
        _ = try await withTimeout { try await container.reload(withoutDetail) }
        #expect(container.openScopes == ["account#ada", "account#ada/scene#w1"])
        await #expect(throws: ContainerError.self) { try await detail.start() }
        #expect(app.torn.count(of: "account#ada/scene#w1/detail#d/detailView") == 1)
        _ = try await withTimeout { try await window.start() }
    }

    @Test("An entry point of a nested scope reads services of its whole chain")
    func entryPoint() async throws {
        struct ShowDetail: EntryPoint {
            let id = "show-detail"
            var scope: String? { "detail" }
            @Needs(.built("detailView")) var view: Built
            @Needs(.built("accountStore")) var store: Built
            @Needs(.built("theme")) var theme: Built
            func run(_ services: ScopedServices) async throws -> [String] {
                [view.instance ?? "", store.instance ?? "", theme.service]
            }
        }
        let app = NestedApp()
        let graph = try ServiceGraph(
            app.specs(), requirements: [ServiceGraph.Requirement(ShowDetail())], scopes: NestedApp.scopes)
        #expect(graph.scopeParts["detail"]?.serviceNames.contains("accountStore") == true)
        let container = ServiceContainer(graph: graph)
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let detail = try window.openScope("detail", id: "d")
        let shown = try await withTimeout { try await detail.run(ShowDetail()) }
        #expect(shown == ["account#ada/scene#w1/detail#d", "account#ada", "theme"])
        #expect(app.count("accountStore") == 1)
    }

    @Test("A shutdown closes every level, innermost first; closing a parent with 1,000 children tears each down once")
    func manyChildren() async throws {
        let app = NestedApp()
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let windows = try (0..<1_000).map {
            try account.openScope("scene", id: "w\($0)", parameters: [.set(.windowID, to: "w\($0)")])
        }
        try await withTimeout {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for window in windows { group.addTask { _ = try await window.start() } }
                try await group.waitForAll()
            }
        }
        #expect(app.count("router") == 1_000 && app.count("accountStore") == 1)
        let report = try await withTimeout { try await container.shutdown() }
        let torn = app.torn.entries
        #expect(torn.count == 1_000 + 1 + 4, "routers, the account store, the app's four")
        #expect(Set(torn).count == torn.count, "each once")
        let store = try #require(torn.firstIndex(of: "account#ada/accountStore"))
        #expect(torn[..<store].count == 1_000, "every router before the account store")
        #expect(torn[(store + 1)...].allSatisfy { !$0.contains("#") }, "then the app's")
        #expect(report.tornDown.count == torn.count)
    }

    @Test("Closing a parent while its child builds: the child's build is cancelled, nothing it made survives")
    func closeDuringChildBuild() async throws {
        let app = NestedApp()
        let gate = app.hold("router")
        let container = ServiceContainer(graph: try app.graph())
        let account = try container.openScope("account", id: "ada", parameters: [.set(.userID, to: "ada")])
        let window = try account.openScope("scene", id: "w1", parameters: [.set(.windowID, to: "w1")])
        let caller = Task { try await window.start() }
        try await withTimeout(.seconds(60), "the router to start") { await app.started("router").wait() }
        let closing = Task { try await account.close() }
        let result = await caller.result
        #expect(throws: ContainerError.self) { try result.get() }
        _ = try await withTimeout { try await closing.value }
        gate.open()
        #expect(app.torn.entries == ["account#ada/accountStore"], "the router never finished")
        #expect(container.openScopes.isEmpty)
    }

    @Test("An app service fans out over the open accounts: the instance updates supplied as an input")
    func appServiceFollowsInstances() async throws {
        let openAccounts = ServiceKey<ScopeInstance.Updates>("openAccounts")
        let seen = Locked<[[String]]>([])
        let loggedOut = Gate()
        let follower = ServiceKey<Task<Void, Never>>("follower")
        let graph = try ServiceGraph(
            [
                ServiceSpec.input(openAccounts),
                ServiceSpec(follower, dependsOn: ["openAccounts"]) { context in
                    let updates = try context[openAccounts]
                    return Task {
                        for await accounts in updates {
                            seen.withLock { $0.append(accounts.map(\.id)) }
                            if accounts.map(\.id) == ["grace"] { loggedOut.open() }
                        }
                    }
                },
                ServiceSpec(.built("accountStore"), lifetime: .scope("account")) { context in
                    Built(service: "accountStore", generation: context.generation, instance: context.scopeInstance)
                },
            ], scopes: ["account"])
        let container = ServiceContainer(graph: graph)
        try await container.supply(openAccounts, container.instanceUpdates(of: "account"))
        let task = try await withTimeout { try await container.service(follower) }
        let ada = try container.openScope("account", id: "ada")
        _ = try container.openScope("account", id: "grace")
        try await withTimeout { _ = try await ada.close() }
        // The service is told of the logout (newest first: it may skip the lists in between).
        try await loggedOut.wait(timeout: .seconds(60), "the follower to see the logout")
        try await withTimeout { _ = try await container.shutdown() }
        // The sequence ends at the shutdown, and so does the service's loop.
        try await withTimeout { await task.value }
        let lists = seen.withLock { $0 }
        #expect(lists.last == ["grace"] || lists.last == [], "\(lists)")
    }
}
