import Container
import Foundation
import Plugins
import Testing

/// `"start"` in a config: read into each service's ``StartPolicy``, checked like every other
/// key, changed and reset by overlays.
struct StartPolicyConfigTests {
    static let base = """
        {
          "version": 1,
          "services": [
            { "name": "database", "provider": "simulated" },
            { "name": "analytics", "provider": "simulated", "start": "deferred" },
            { "name": "searchIndex", "provider": "simulated", "dependsOn": ["database"], "start": "lazy" },
            { "name": "session", "provider": "simulated", "dependsOn": ["database"], "start": "eager" }
          ]
        }
        """

    static func policies(of config: ContainerConfig) -> [String: StartPolicy] {
        Dictionary(uniqueKeysWithValues: config.specs.map { ($0.name, $0.start) })
    }

    @Test("each service's start policy is read; without the key a service is eager")
    func policiesAreRead() throws {
        let config = try ConfigLoader.load(text: Self.base, file: "base.json")
        #expect(
            Self.policies(of: config) == [
                "database": .eager, "analytics": .deferred, "searchIndex": .lazy, "session": .eager,
            ])
        #expect(config.graph.declaresStartPolicies)
        #expect(config.graph.startPolicy(of: "searchIndex") == .lazy)
    }

    @Test("an unknown word: its place and a suggestion; a word far from every policy lists them")
    func unknownWordsAreReported() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated", "start": "lazzy" },
                { "name": "b", "provider": "simulated", "start": "sometime" },
                { "name": "c", "provider": "simulated", "start": 3 }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:4:54: services[0].start: unknown start policy 'lazzy'; did you mean 'lazy'?
                test.json:5:54: services[1].start: unknown start policy 'sometime'; use "eager" (the default), "deferred" or "lazy"
                test.json:6:54: services[2].start: must be a string, found an integer
                """)
    }

    @Test("an overlay changes one service's policy and resets another's to eager with null")
    func overlaysChangeAndReset() throws {
        let overlay = """
            {
              "version": 1,
              "overlay": true,
              "services": [
                { "name": "database", "start": "lazy" },
                { "name": "analytics", "start": null }
              ]
            }
            """
        let config = try ConfigLoader.load(
            text: Self.base, file: "base.json", overlays: [ConfigOverlay(file: "overlay.json", text: overlay)])
        #expect(
            Self.policies(of: config) == [
                "database": .lazy, "analytics": .eager, "searchIndex": .lazy, "session": .eager,
            ])
    }
}
