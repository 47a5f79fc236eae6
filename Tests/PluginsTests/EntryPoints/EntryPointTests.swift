import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import Testing

/// Entry points see only what they declared.
struct EntryPointTests {
    /// Declares only the session, then reads the database anyway.
    struct SneakyEntryPoint: EntryPoint {
        let id = "sneaky"
        var requirements: [AnyServiceKey] { [ServiceKey.session.erased] }
        func run(_ services: ScopedServices) async throws -> String {
            _ = try services[.session]
            return try services[.database].path
        }
    }

    @Test func readingAnUndeclaredServiceIsAClearError() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        do {
            _ = try await withTimeout { try await container.run(SneakyEntryPoint()) }
            Issue.record("the undeclared read should throw")
        } catch let error as AppServices.LookupError {
            #expect(error.code == .undeclared)
            #expect(error.service == "database")
            #expect(
                error.description == """
                    entry point 'sneaky' read 'database' without declaring it (it declared: session); \
                    declare it on the entry point: @Needs(ServiceKey<Database>("database")) var database: Database \
                    (or list it in requirements)
                    """)
        }
        // The services exist: it is the declaration, not the build, that refused the read.
        #expect(container.current != nil)
        try await container.shutdown()
    }

    @Test func standardRegistryHoldsTheStandardProvidersAndNoEntryPoint() {
        let registry = ProviderRegistry.standard
        #expect(
            registry.providers.keys.sorted() == ["configuration", "session", "simulated", "simulatedNow", "sqlite"])
        // Entry points are the app's code; the deep-link one is made per link.
        #expect(registry.entryPoints.isEmpty)
        #expect(DeepLinkEntryPoint(url: "demo://profile").requirements.map(\.name) == ["configuration", "session"])
        #expect(DeepLinkEntryPoint(url: "demo://profile").scope == nil)
    }

    @Test func standardRegistryRejectsADuplicatePlugin() {
        var registry = ProviderRegistry.standard
        #expect(throws: ProviderRegistry.RegistrationError.self) { try registry.register(SimulatedProvider()) }
        try? registry.register(entryPoint: DeepLinkEntryPoint(url: "demo://a"))
        #expect(throws: ProviderRegistry.RegistrationError.self) {
            try registry.register(entryPoint: DeepLinkEntryPoint(url: "demo://b"))
        }
    }

    @Test func deepLinksAreRoutedThroughTheConfiguration() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let settings = try await withTimeout { try await container.run(DeepLinkEntryPoint(url: "demo://settings")) }
        #expect(settings == "deeplink: demo://settings -> SettingsScreen (signed in as ada)")
        let unknown = try await withTimeout { try await container.run(DeepLinkEntryPoint(url: "demo://nowhere")) }
        #expect(unknown == "deeplink: demo://nowhere -> no route for /nowhere (known: /profile, /settings)")
        let foreign = try await withTimeout { try await container.run(DeepLinkEntryPoint(url: "other://profile")) }
        #expect(foreign == "deeplink: other://profile ignored (scheme is not 'demo'; found 'other')")
        let configuration = try #require(container.current)[.configuration]
        #expect(configuration.isEnabled("newOnboarding"))
        #expect(!configuration.isEnabled("offlineMode"))
        #expect(configuration.raw["theme"] == .string("dark"))
        try await container.shutdown()
    }

    @Test func aBadSettingsFileIsAPermanentErrorWithItsLine() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        _ = try fixture.write("settings/app-settings.json", "{\n  \"appName\": 42\n}\n")
        let config = try ConfigLoader.load(path: fixture.appConfig, registry: .demo, pathRoots: fixture.pathRoots)
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        await #expect {
            try await withTimeout { try await container.start() }
        } throws: { error in
            guard let error = error as? ContainerError, error.failure == .permanent else { return false }
            return error.description.contains(
                "app-settings.json:2:14: setting 'appName' must be a string, found an integer")
        }
        try await container.shutdown()
    }
}
