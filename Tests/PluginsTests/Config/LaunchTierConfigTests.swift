import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// `"isolation"` and `"priority"` in a config: read into each service's spec, checked like every
/// other key (with their place and a suggestion), changed and reset by overlays.
@Suite("Main-actor services and priorities in a config (Launch tiers)")
struct LaunchTierConfigTests {
    static let base = """
        {
          "version": 1,
          "services": [
            { "name": "settings", "provider": "simulated" },
            { "name": "theme", "provider": "simulated", "dependsOn": ["settings"], "isolation": "main" },
            { "name": "router", "provider": "simulated", "isolation": "nonisolated", "priority": "high" },
            { "name": "analytics", "provider": "simulated", "start": "deferred", "priority": "low" }
          ]
        }
        """

    @Test("each service's isolation and priority are read; without the keys, the provider's and none")
    func keysAreRead() async throws {
        let config = try ConfigLoader.load(text: Self.base, file: "base.json")
        #expect(config.specs.map(\.isolation) == [nil, .main, .nonisolated, nil])
        #expect(config.specs.map(\.priority) == [nil, nil, .high, .low])
        // A standard provider, declared main in the config, runs on the main actor.
        let container = ServiceContainer(graph: config.graph)
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        #expect(services.report.node("theme")?.executor == .main)
        #expect(services.report.node("settings")?.executor == .pool)
        #expect(services.report.node("router")?.priority == .high)
    }

    @Test("an unknown word: its place and a suggestion; a word far from every value lists them")
    func unknownWordsAreReported() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated", "isolation": "mainn" },
                { "name": "b", "provider": "simulated", "isolation": "MainActor.shared" },
                { "name": "c", "provider": "simulated", "isolation": true },
                { "name": "d", "provider": "simulated", "priority": "hgh" },
                { "name": "e", "provider": "simulated", "priority": "urgent" },
                { "name": "f", "provider": "simulated", "priority": 25 }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:4:58: services[0].isolation: unknown isolation 'mainn'; did you mean 'main'?
                test.json:5:58: services[1].isolation: unknown isolation 'MainActor.shared'; use "main" (the provider runs on the main actor) or "nonisolated"
                test.json:6:58: services[2].isolation: must be a string, found a boolean
                test.json:7:57: services[3].priority: unknown priority 'hgh'; did you mean 'high'?
                test.json:8:57: services[4].priority: unknown priority 'urgent'; use one of "high", "medium", "low", "background" (or leave it out: background for a deferred service, its callers' otherwise)
                test.json:9:57: services[5].priority: must be a string, found an integer
                """)
    }

    @Test("an overlay changes one service's isolation and resets another's priority with null")
    func overlaysChangeAndReset() throws {
        let overlay = """
            {
              "version": 1,
              "overlay": true,
              "services": [
                { "name": "settings", "isolation": "main", "priority": "background" },
                { "name": "theme", "isolation": null },
                { "name": "router", "priority": null }
              ]
            }
            """
        let config = try ConfigLoader.load(
            text: Self.base, file: "base.json", overlays: [ConfigOverlay(file: "overlay.json", text: overlay)])
        #expect(config.specs.map(\.isolation) == [.main, nil, .nonisolated, nil])
        #expect(config.specs.map(\.priority) == [.background, nil, nil, .low])
    }
}
