import ContainerTesting
import Testing

@testable import Container

extension ServiceKey where Value == String {
    fileprivate static let database = ServiceKey("database")
    fileprivate static let analytics = ServiceKey("analytics")
    fileprivate static let detail = ServiceKey("detail")
}

/// Reads `detail` of its scope and `analytics`, an app service no scoped service depends on.
private struct PushEntry: EntryPoint {
    let id = "push"
    var scope: String? { "push" }
    @Needs(.detail) var detail: String
    @Needs(.analytics) var analytics: String
    func run(_ services: ScopedServices) async throws -> String { "\(detail) via \(analytics)" }
}

/// Reads a service the graph does not declare.
private struct LostEntry: EntryPoint {
    let id = "lost"
    @Needs(ServiceKey<String>("analytcs")) var analytics: String
    func run(_ services: ScopedServices) async throws -> String { analytics }
}

/// An entry point's view always holds what it declares: its `@Needs` properties never stop the
/// program, whether or not the graph was validated with its requirements.
@Suite("Entry points read what they declare, with or without requirements")
struct EntryPointViewTests {
    static func graph(log: OrderLog) throws -> ServiceGraph {
        try ServiceGraph(
            [
                .counting(.database, log: log) { _ in "db" },
                .counting(.analytics, log: log) { _ in "analytics" },
                .counting(.detail, dependsOn: ["database"], lifetime: .scope("push"), log: log) { context in
                    "detail from \(try context[.database])"
                },
            ], scopes: ["push"])
    }

    @Test("a scoped entry point reads an app service its scope does not use, on a graph without requirements")
    func scopedWithoutRequirements() async throws {
        let log = OrderLog()
        let container = ServiceContainer(graph: try Self.graph(log: log))
        let shown = try await withTimeout {
            try await container.run(PushEntry(), scopeID: "n-1", parameters: [])
        }
        #expect(shown == "detail from db via analytics")
        #expect(log.count(of: "analytics") == 1 && log.count(of: "detail") == 1)
        // In an instance kept open, and again after a reset that the instance does not use.
        let push = try container.openScope("push", id: "n-2")
        #expect(try await withTimeout { try await push.run(PushEntry()) } == "detail from db via analytics")
        try await container.reset(invalidating: ["analytics"])
        #expect(try await withTimeout { try await push.run(PushEntry()) } == "detail from db via analytics")
        #expect(log.count(of: "analytics") == 2, "the view reads the new generation's analytics")
        #expect(log.count(of: "detail") == 2, "the instance kept its snapshot (one detail per instance)")
        try await container.shutdown()
    }

    @Test("the view of an instance built before a reset reads the app services of one generation")
    func consistentAfterReset() async throws {
        let log = OrderLog()
        let container = ServiceContainer(graph: try Self.graph(log: log))
        let push = try container.openScope("push", id: "n-1")
        let first = try await withTimeout { try await push.start() }
        try await container.reset(invalidating: ["database"])
        // The instance used the database: it was superseded, and the view is built on generation 2.
        let view = try await withTimeout {
            try await push.services(for: "push", requirements: PushEntry().requirements)
        }
        #expect(view.generation == first.generation + 1)
        #expect(try view[.analytics] == "analytics")
        try await container.shutdown()
    }

    @Test("an entry point requiring what the graph lacks gets a GraphError before it runs, never a crash")
    func unknownRequirement() async throws {
        let container = ServiceContainer(graph: try Self.graph(log: OrderLog()))
        let error = await #expect(throws: GraphError.self) { try await container.run(LostEntry()) }
        #expect(error?.issues.map(\.code) == [.unknownRequirement])
        #expect(error?.issues.first?.message.contains("did you mean 'analytics'?") == true)
        let scoped = await #expect(throws: GraphError.self) {
            try await container.run(PushEntryWrongType(), scopeID: "n-3", parameters: [])
        }
        #expect(scoped?.issues.map(\.code) == [.typeMismatch])
        #expect(scoped?.issues.first?.message.contains(#"ServiceKey<String>("detail")"#) == true)
        try await container.shutdown()
    }

    @Test("an undeclared read from an entry point names the @Needs property to add, in Swift")
    func undeclaredRemedy() throws {
        let error = AppServices.LookupError.undeclared(
            "push-detail", reader: "entry point 'push'", declared: ["session"], type: String.self)
        #expect(error.message.contains(#"@Needs(ServiceKey<String>("push-detail")) var pushDetail: String"#))
        #expect(error.failureKind == .permanent)
    }
}

/// Reads `detail` as an `Int`.
private struct PushEntryWrongType: EntryPoint {
    let id = "push-int"
    var scope: String? { "push" }
    @Needs(ServiceKey<Int>("detail")) var detail: Int
    func run(_ services: ScopedServices) async throws -> Int { detail }
}
