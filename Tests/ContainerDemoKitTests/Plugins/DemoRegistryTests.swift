import Container
import ContainerDemoKit
import ContainerTesting
import Plugins
import Testing

/// The demo's plugins live in the demo kit: its registry names what `Configs/` uses, and the
/// standard one keeps only what an app would ship.
@Suite("The demo's registry and schema")
struct DemoRegistryTests {
    @Test("The demo's entry points declare what they read; scene and push run in their scopes")
    func entryPointsDeclareWhatTheyRead() {
        #expect(LaunchEntryPoint().requirements.map(\.name) == ["configuration", "database", "session"])
        #expect(SceneEntryPoint().requirements.map(\.name) == ["configuration", "sceneRouter"])
        // Push reads its notification's detail from its own scope, never local storage directly.
        #expect(PushEntryPoint().requirements.map(\.name) == ["session", "pushDetail"])
        #expect(SceneEntryPoint().scope == "scene" && PushEntryPoint().scope == "push")
        #expect(LaunchEntryPoint().scope == nil)
    }

    @Test("ProviderRegistry.demo: the standard providers, the scoped demo providers and four entry points")
    func demoRegistry() {
        let demo = ProviderRegistry.demo
        #expect(demo.entryPoints.keys.sorted() == ["deeplink", "launch", "push", "scene"])
        #expect(
            demo.providers.keys.sorted() == [
                "configuration", "pushDetail", "sceneRouter", "session", "simulated", "simulatedNow", "sqlite",
            ])
        #expect((demo.entryPoint("deeplink") as? DeepLinkEntryPoint)?.url == "demo://profile")
        let standard = ProviderRegistry.standard
        #expect(standard.entryPoints.isEmpty)
        #expect(Set(standard.providers.keys).isSubset(of: demo.providers.keys))
    }

    @Test("The demo's scoped providers read no option: any but a description is refused")
    func scopedProvidersRefuseOptions() throws {
        #expect(throws: Never.self) {
            try SceneRouterProvider().validate(options: ServiceOptions(["description": .string("the router")]))
        }
        #expect(
            throws: OptionError.invalid(
                "title", "unknown option (pushDetail reads description, and the options listed in secretOptions)")
        ) {
            try PushDetailProvider().validate(options: ServiceOptions(["title": .string("x")]))
        }
        #expect(throws: OptionError.self) {
            try SceneRouterProvider().validate(options: ServiceOptions(["theme": .string("dark")]))
        }
    }

    @Test(
        "A database that lists no migrations gets the demo schema with the demo's registry, the sessions table alone with the standard one"
    )
    func defaultSchemas() async throws {
        let text =
            #"{ "version": 1, "services": [ { "name": "database", "provider": "sqlite", "options": { "path": ":memory:" } } ] }"#
        func tables(_ registry: ProviderRegistry) async throws -> [String] {
            let config = try ConfigLoader.load(text: text, file: "db.json", registry: registry)
            let container = ServiceContainer(graph: config.graph)
            let database = try await withTimeout { try await container.start() }[.database]
            let names = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                .compactMap { $0["name"]?.string }
            _ = try await container.shutdown()
            return names.filter { $0 != "sqlite_sequence" }
        }
        #expect(try await tables(.demo) == ["items", "launches", "schema_migrations", "sessions"])
        #expect(try await tables(.standard) == ["schema_migrations", "sessions"])
        #expect(DemoSchema.migrations.map(\.name) == ["create_sessions", "create_launches", "create_items"])
        #expect(Migration.standard == [Migration.sessionsTable])
    }
}
