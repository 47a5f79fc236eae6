import ContainerTesting
import Testing

@testable import Container

@Suite("Graph validation: every problem at once, before anything runs (Coordinator rules)")
struct ValidationTests {
    struct Numbers: ServiceProvider {
        let id = "numbers"
        func make(_ context: ProviderContext) async throws -> Int { 1 }
    }

    private var registry: ProviderRegistry {
        var registry = ProviderRegistry()
        try? registry.register(Numbers())
        return registry
    }

    private func spec(_ name: String, _ deps: [String] = [], provider: String = "numbers", index: Int = 0)
        -> ServiceSpec
    {
        ServiceSpec(
            name: name, provider: provider, dependsOn: deps,
            location: ConfigLocation(file: "app.json", keyPath: "services[\(index)]", line: index + 3))
    }

    @Test("All errors are collected together, each with its location")
    func collectsEverything() throws {
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph(
                [
                    spec("config", index: 0),
                    spec("database", ["confg"], index: 1),
                    spec("session", ["database", "feed"], index: 2),
                    spec("feed", ["session"], index: 3),
                    spec("config", index: 4),
                    spec("push", provider: "numbrs", index: 5),
                ], registry: registry)
        }
        let issues = try #require(error?.issues)
        #expect(Set(issues.map(\.code)) == [.missingDependency, .cycle, .duplicateService, .unknownProvider])
        #expect(issues.count == 4)

        let missing = try #require(issues.first { $0.code == .missingDependency })
        #expect(
            missing.message == "service 'database' depends on 'confg', which is not declared; did you mean 'config'?")
        #expect(missing.location.description == "app.json:4: services[1].dependsOn[0]")

        let cycle = try #require(issues.first { $0.code == .cycle })
        #expect(cycle.message.contains("session -> feed -> session"))

        let duplicate = try #require(issues.first { $0.code == .duplicateService })
        #expect(
            duplicate.message.contains("service 'config' is declared twice (first declared at app.json:3: services[0])")
        )

        let unknown = try #require(issues.first { $0.code == .unknownProvider })
        #expect(
            unknown.message
                == "service 'push' uses unknown provider 'numbrs'; did you mean 'numbers'? (known providers: numbers)")
        #expect(error?.description.hasPrefix("invalid service graph (4 problems):\n  - app.json:") == true)
    }

    @Test("Cycles are reported as paths, each cycle once")
    func cyclePaths() throws {
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph(
                [
                    spec("a", ["b"]), spec("b", ["c"]), spec("c", ["a"]),
                    spec("self", ["self"]),
                    spec("x", ["y"]), spec("y", ["x", "a"]),
                ], registry: registry)
        }
        let paths = error?.issues.map(\.message) ?? []
        #expect(paths.count == 3)
        #expect(paths.contains("dependency cycle a -> b -> c -> a; remove one of these dependencies"))
        #expect(paths.contains("dependency cycle self -> self; remove one of these dependencies"))
        #expect(paths.contains("dependency cycle x -> y -> x; remove one of these dependencies"))
    }

    @Test("A long cycle is shown by its ends, in one short line")
    func longCycle() throws {
        let count = 1_000
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph((0..<count).map { spec("n\($0)", ["n\(($0 + 1) % count)"]) }, registry: registry)
        }
        #expect(
            error?.issues.map(\.message) == [
                "dependency cycle n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> … (992 more) -> n998 -> n999 -> n0; "
                    + "remove one of these dependencies"
            ])
    }

    @Test("Requirements of entry points are checked by name and type")
    func requirements() throws {
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph(
                [spec("count")], registry: registry,
                requirements: [
                    ServiceGraph.Requirement(reader: "entry point 'push'", keys: [ServiceKey<Int>("sesion").erased]),
                    ServiceGraph.Requirement(reader: "entry point 'scene'", keys: [ServiceKey<String>("count").erased]),
                ])
        }
        let issues = error?.issues ?? []
        #expect(issues.map(\.code) == [.unknownRequirement, .typeMismatch])
        #expect(
            issues.first?.message
                == "entry point 'push' requires service 'sesion', which is not declared; declare a service named 'sesion'"
        )
        #expect(
            issues.last?.message.contains("reads service 'count' as String, but its provider 'numbers' makes Int")
                == true)
    }

    @Test("Nothing runs when the graph is invalid")
    func nothingRuns() {
        let calls = Counter()
        #expect(throws: GraphError.self) {
            try ServiceContainer([
                ServiceSpec(ServiceKey<Int>("a"), dependsOn: ["missing"]) { _ in calls.increment() }
            ])
        }
        #expect(calls.count == 0)
    }

    @Test("A valid graph exposes its structure")
    func structure() throws {
        let graph = try ServiceGraph([spec("a"), spec("b", ["a"]), spec("c", ["a", "b"])], registry: registry)
        #expect(graph.count == 3)
        #expect(graph.serviceNames == ["a", "b", "c"])
        #expect(graph.dependencies(of: "c") == ["a", "b"])
        #expect(graph.dependents(of: "a") == ["b", "c"])
        #expect(graph.providerID(of: "b") == "numbers")
        #expect(graph.dependencies(of: "zzz") == nil)
    }

    @Test("Validation of a long chain and a wide graph stays linear (no recursion limits)")
    func largeGraphs() throws {
        let chain = (0..<50_000).map { spec("n\($0)", $0 == 0 ? [] : ["n\($0 - 1)"]) }
        #expect(try ServiceGraph(chain, registry: registry).count == 50_000)
        var cyclic = chain
        cyclic[0] = spec("n0", ["n49999"])
        let error = #expect(throws: GraphError.self) { try ServiceGraph(cyclic, registry: registry) }
        #expect(error?.issues.count == 1)
    }

    @Test("Did-you-mean suggestions only for near misses")
    func suggestions() {
        #expect(NameSuggestion.closest(to: "dependOn", among: ["dependsOn", "options"]) == "dependsOn")
        #expect(NameSuggestion.closest(to: "sesion", among: ["session", "database"]) == "session")
        #expect(NameSuggestion.closest(to: "xyz", among: ["session", "database"]) == nil)
    }
}
