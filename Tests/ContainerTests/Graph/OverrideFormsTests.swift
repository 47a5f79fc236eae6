import ContainerTesting
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let settings = ServiceKey("settings")
    fileprivate static let console = ServiceKey("console")
    fileprivate static let remote = ServiceKey("remote")
    fileprivate static let analytics = ServiceKey("analytics")
    fileprivate static let router = ServiceKey("router")
}

extension ServiceGroup where Value == String {
    fileprivate static let trackers = ServiceGroup("trackers")
}

/// Every override form on a graph with a group, typed edges and a scope: an override, even of an
/// unrelated service, keeps every other declaration as written (the group's members and readers,
/// the typed dependencies, the lifetimes).
@Suite("Overrides keep groups, typed edges and scopes")
struct OverrideFormsTests {
    /// `settings`; two `trackers` members (`console`, `remote`) reading it through a typed edge;
    /// `analytics` reading the group; `router` in scope `scene`, reading settings and analytics.
    static func graph(log: OrderLog) throws -> ServiceGraph {
        try ServiceGraph(
            [
                .counting(.settings, log: log) { _ in "settings" },
                ServiceSpec(.console, dependsOn: .settings, group: "trackers") { "console(\(try $0[.settings]))" },
                ServiceSpec(.remote, dependsOn: .settings, group: "trackers") { "remote(\(try $0[.settings]))" },
                ServiceSpec(.analytics, dependsOn: [ServiceGroup<String>.trackers.dependency]) { context in
                    try context.group(.trackers).joined(separator: "+")
                },
                ServiceSpec(.router, dependsOn: .settings, .analytics, lifetime: .scope("scene")) { context in
                    "router on \(try context[.analytics])"
                },
            ], scopes: ["scene"])
    }

    /// Builds the app and one scene instance of `graph`; returns analytics and the router.
    static func build(_ graph: ServiceGraph) async throws -> (analytics: String, router: String) {
        let container = ServiceContainer(graph: graph)
        let analytics = try await withTimeout { try await container.start() }[.analytics]
        let scene = try container.openScope("scene", id: "1")
        let router = try await withTimeout { try await scene.start() }[.router]
        try await container.shutdown()
        return (analytics, router)
    }

    @Test(
        "each form, of a member, of the group's reader, of a scoped service or of an unrelated service, keeps the rest",
        arguments: [
            ("settings", "console(fake)+remote(fake) | router on console(fake)+remote(fake)"),
            ("console", "fake+remote(settings) | router on fake+remote(settings)"),
            ("analytics", "fake | router on fake"),
            ("router", "console(settings)+remote(settings) | fake"),
        ])
    func everyForm(service: String, expected: String) async throws {
        let forms: [ServiceGraph.Override] = [
            .value(ServiceKey<String>(service), "fake"),
            .provider(ServiceKey<String>(service), FakeProvider.succeeding("fake")),
            .make(ServiceKey<String>(service)) { _ in "fake" },
        ]
        for form in forms {
            let graph = try Self.graph(log: OrderLog()).overriding([form])
            #expect(graph.overriddenServices == [service])
            #expect(graph.lifetime(of: "router") == .scope("scene"))
            let built = try await Self.build(graph)
            #expect("\(built.analytics) | \(built.router)" == expected)
        }
    }

    @Test("an override that keeps its dependencies keeps the group membership and the typed edges")
    func membershipAndTypedEdges() async throws {
        let graph = try Self.graph(log: OrderLog()).overriding([
            .make(.remote) { "fake remote(\(try $0[.settings]))" }
        ])
        let node = try #require(graph.nodes.first { $0.name == "remote" })
        #expect(node.declaration.group == "trackers")
        #expect(node.declaration.typedDependencies.map(\.name) == ["settings"])
        let built = try await Self.build(graph)
        #expect(built.analytics == "console(settings)+fake remote(settings)")
        // The typed edge is still checked: replacing its dependency with another type fails validation.
        let issues = OverrideTests.issues {
            _ = try Self.graph(log: OrderLog()).overriding([.value(ServiceKey<Int>("settings"), 7)])
        }
        #expect(issues.map(\.code) == [.typeMismatch])
    }

    @Test("new dependencies replace the typed ones they no longer name; group entries in them work")
    func newDependencies() async throws {
        let graph = try Self.graph(log: OrderLog()).overriding([
            .make(.console, dependsOn: []) { _ in "silent" },
            .make(.analytics, dependsOn: [ServiceGroup<String>.trackers.dependency, "settings"]) { context in
                "\(try context.group(.trackers).count) trackers, \(try context[.settings])"
            },
        ])
        let console = try #require(graph.nodes.first { $0.name == "console" })
        #expect(console.declaration.typedDependencies.isEmpty)
        #expect(console.declaration.group == "trackers")
        #expect(try await Self.build(graph).analytics == "2 trackers, settings")
    }

    @Test("a provider reading a group it does not declare fails permanently, with a remedy that is Swift")
    func undeclaredGroupIsPermanent() async throws {
        let graph = try ServiceGraph([
            ServiceSpec(.console, group: "trackers") { _ in "console" },
            ServiceSpec(.analytics) { try $0.group(.trackers).joined() },
        ])
        let container = ServiceContainer(graph: graph)
        let error = await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start() } }
        #expect(error?.failure == .permanent, "a programming error is not retried")
        let message = String(describing: error?.report?.failedNodes.first.flatMap { error?.report?.outcome(of: $0) })
        #expect(message.contains(#"dependsOn: ["group:trackers"]"#), "got: \(message)")
        #expect(!message.contains(".group:"), "no invalid Swift")
    }
}
