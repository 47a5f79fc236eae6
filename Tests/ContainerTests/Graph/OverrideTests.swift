import ContainerTesting
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let settings = ServiceKey("settings")
    fileprivate static let database = ServiceKey("database")
    fileprivate static let session = ServiceKey("session")
}

@Suite("Overrides in code: replace a service for a test or a preview (Overrides)")
struct OverrideTests {
    /// `settings <- database <- session`, each provider counting its runs in `log`.
    static func graph(log: OrderLog, scoped: Bool = false) throws -> ServiceGraph {
        try ServiceGraph(
            [
                .counting(.settings, log: log) { _ in "settings" },
                .counting(.database, dependsOn: ["settings"], log: log) { "disk with \(try $0[.settings])" },
                .counting(.session, dependsOn: ["database"], lifetime: scoped ? .scope("scene") : .app, log: log) {
                    "session on \(try $0[.database])"
                },
            ], scopes: scoped ? ["scene"] : [])
    }

    /// The issues of the error `body` throws.
    static func issues(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) -> [GraphError.Issue] {
        do {
            try body()
        } catch let error as GraphError {
            return error.issues
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
            return []
        }
        Issue.record("expected a GraphError", sourceLocation: sourceLocation)
        return []
    }

    @Test("a fixed value replaces the provider; dependents read it; the dependencies still come first")
    func fixedValue() async throws {
        let log = OrderLog()
        let graph = try Self.graph(log: log)
        let overridden = try graph.overriding([.value(.database, "memory")])
        #expect(overridden.overriddenServices == ["database"])
        #expect(overridden.isOverridden("database") && !overridden.isOverridden("session"))
        #expect(overridden.dependencies(of: "database") == ["settings"], "dependencies are kept")
        #expect(overridden.providerID(of: "database") == "override")
        #expect(graph.overriddenServices.isEmpty && graph.providerID(of: "database") == "closure", "unchanged")
        let trace = TraceWatcher()
        let container = ServiceContainer(graph: overridden, trace: [trace])
        let services = try await withTimeout { try await container.start() }
        #expect(try services[.session] == "session on memory")
        #expect(log.entries == ["settings", "session"], "the replaced provider never runs")
        try trace.expect(.overridden("database"), .builtOnce("session"), .started("settings", times: 1))
        #expect(
            !trace.events.contains { if case .nodeStarted("session", true, _, _) = $0.kind { true } else { false } })
        try trace.events.expect(TraceInvariants.expectations(for: overridden))
    }

    @Test("a provider, new dependencies, and a closure; the container's overrides initializer")
    func providerAndClosure() async throws {
        let log = OrderLog()
        let fake = FakeProvider(.fail(.transient), .succeed("fake disk"))
        let container = try ServiceContainer(
            graph: try Self.graph(log: log),
            overrides: [
                .provider(.database, fake, dependsOn: []),
                .make(.session, dependsOn: ["database", "settings"]) { context in
                    "\(try context[.database]) + \(try context[.settings])"
                },
            ])
        #expect(container.graph.dependencies(of: "database") == [])
        #expect(container.graph.overriddenServices == ["database", "session"])
        let error = await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start() } }
        #expect(error?.failure == .transient, "the replacement's own classification")
        #expect(try await withTimeout { try await container.start() }[.session] == "fake disk + settings")
        #expect(fake.calls == 2)
    }

    @Test("a replacement of another type is a typeMismatch naming the service and both types, where it was written")
    func wrongType() throws {
        let graph = try Self.graph(log: OrderLog())
        let issues = Self.issues { _ = try graph.overriding([.value(ServiceKey<Int>("database"), 7)]) }
        #expect(issues.map(\.code) == [.typeMismatch])
        #expect(issues.first?.service == "database")
        #expect(issues.first?.message.contains("makes Int") == true)
        #expect(issues.first?.message.contains("expect String") == true)
        #expect(issues.first?.location.file == "ContainerTests/OverrideTests.swift")
    }

    @Test("unknown and twice-overridden services, all reported at once, with a suggestion")
    func unknownAndDuplicate() throws {
        let graph = try Self.graph(log: OrderLog())
        let issues = Self.issues {
            _ = try graph.overriding([
                .value(ServiceKey<String>("databse"), "x"),
                .value(.session, "a"),
                .value(.session, "b"),
                .value(ServiceKey<String>("cache"), "c"),
            ])
        }
        #expect(issues.map(\.code) == [.unknownService, .duplicateService, .unknownService])
        #expect(issues[0].message.contains("did you mean 'database'?"))
        #expect(issues[1].message.contains("overridden twice (first at ContainerTests/OverrideTests.swift:"))
        #expect(issues[2].message.contains("(services: settings, database, session)"))
    }

    @Test("new dependencies and lifetimes are validated like a declaration: missing, cycles, scopes")
    func revalidated() throws {
        let log = OrderLog()
        let graph = try Self.graph(log: log)
        let missing = Self.issues { _ = try graph.overriding([.value(.database, "x", dependsOn: ["setings"])]) }
        #expect(missing.map(\.code) == [.missingDependency])
        #expect(missing.first?.message.contains("did you mean 'settings'?") == true)
        #expect(missing.first?.location.file == "ContainerTests/OverrideTests.swift", "the override's place")
        let cycle = Self.issues { _ = try graph.overriding([.value(.settings, "x", dependsOn: ["session"])]) }
        #expect(cycle.map(\.code) == [.cycle])
        let captive = Self.issues {
            _ = try Self.graph(log: log, scoped: true).overriding([
                .value(.database, "x", dependsOn: []),
                .provider(.settings, FakeProvider.succeeding("x"), dependsOn: ["session"]),
                .provider(.session, FakeProvider.succeeding("x"), lifetime: .scope("scene")),
            ])
        }
        #expect(captive.map(\.code) == [.captiveDependency])
        let undeclared = Self.issues {
            _ = try graph.overriding([.provider(.session, FakeProvider.succeeding("x"), lifetime: .scope("scene"))])
        }
        #expect(undeclared.map(\.code) == [.undeclaredScope])
    }

    @Test("a scoped graph keeps its scopes; an app service a scope reads can be overridden")
    func scopes() async throws {
        let log = OrderLog()
        let graph = try Self.graph(log: log, scoped: true).overriding([.value(.database, "memory")])
        #expect(graph.scopeNames == ["scene"])
        #expect(graph.lifetime(of: "session") == .scope("scene"))
        let trace = TraceWatcher()
        let container = ServiceContainer(graph: graph, trace: [trace])
        _ = try await withTimeout { try await container.start() }
        let scene = try container.openScope("scene", id: "1")
        #expect(try await withTimeout { try await scene.start() }[.session] == "session on memory")
        try trace.expect(.overridden("database"), .builtOnce("session"))
    }

    @Test("overriding an overridden graph adds to it; no overrides returns the graph itself")
    func layered() throws {
        let graph = try Self.graph(log: OrderLog())
        #expect(try graph.overriding([]) === graph)
        let twice = try graph.overriding([.value(.database, "a")]).overriding([.value(.session, "b")])
        #expect(twice.overriddenServices == ["database", "session"])
    }
}
