import ContainerTesting
import Testing

@testable import Container

@Suite("One redactor per graph: its secrets, made once, where everything starts from")
struct GraphRedactorTests {
    static let dsn = ServiceOptions(
        ["dsn": .string("host=db user=zq_owner password=ZqPass_4411"), "pool": .int(8)], secretKeys: ["dsn"])

    @Test("The graph's redactor hides the values of every secret option, fragments too, and nothing else")
    func graphRedactor() throws {
        var scoped = ServiceSpec(
            ServiceKey<String>("detail"), options: ServiceOptions(["key": .string("sk_live_77aa")], secretKeys: ["key"])
        ) { _ in "detail" }
        scoped.lifetime = .scope("push")
        let graph = try ServiceGraph(
            [ServiceSpec(ServiceKey<String>("store"), options: Self.dsn) { _ in "store" }, scoped], scopes: ["push"])
        #expect(graph.redactor === graph.redactor, "one per graph")
        #expect(
            graph.redactor.redact("auth failed for zq_owner with ZqPass_4411; sk_live_77aa; pool 8")
                == "auth failed for <redacted> with <redacted>; <redacted>; pool 8")
        #expect(try ServiceGraph([]).redactor.redact("zq_owner") == "zq_owner")
    }

    @Test("A container starts from its graph's redactor: the tokens it registers stay its own")
    func containerStartsFromTheGraph() async throws {
        let graph = try ServiceGraph([
            ServiceSpec(ServiceKey<String>("store"), options: Self.dsn) { context in
                context.registerSecret("tok_9c1e77ab")
                return "store"
            }
        ])
        let container = ServiceContainer(graph: graph)
        let other = ServiceContainer(graph: graph)
        _ = try await container.start()
        #expect(container.core.redactor.redact("ZqPass_4411 tok_9c1e77ab") == "<redacted> <redacted>")
        #expect(other.core.redactor.redact("ZqPass_4411 tok_9c1e77ab") == "<redacted> tok_9c1e77ab")
        #expect(graph.redactor.redact("tok_9c1e77ab") == "tok_9c1e77ab")
        try await container.shutdown()
        try await other.shutdown()
    }

    @Test("Rejected options are redacted with every secret of the graph being validated")
    func validationRedactsEverySecret() throws {
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<String>("store"), options: Self.dsn) { _ in "store" },
                ServiceSpec(
                    name: "mirror", provider: RejectingProvider(),
                    options: ServiceOptions(["copyOf": .string("password=ZqPass_4411")])),
            ])
        }
        let issue = try #require(error?.issues.first)
        #expect(
            issue.message
                == "service 'mirror' (provider 'rejecting'): option 'copyOf': '<redacted>=<redacted>' is not allowed")
    }

    /// Rejects `copyOf`, quoting it.
    struct RejectingProvider: ServiceProvider {
        let id = "rejecting"
        func validate(options: ServiceOptions) throws {
            throw OptionError.invalid("copyOf", "'\(try options.string("copyOf"))' is not allowed")
        }
        func make(_ context: ProviderContext) async throws -> Int { 0 }
    }
}
