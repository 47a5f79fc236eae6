import Container
import Foundation
import Plugins
import Testing

/// `"provider": "input"` in a config: the value type its options name, lazy by default, checked.
struct InputConfigTests {
    struct DeviceToken: Sendable { let hex: String }
    struct InputNamedProvider: ServiceProvider {
        let id = "input"
        func make(_ context: ProviderContext) async throws -> Int { 1 }
    }

    @Test("an input names its value type; it is lazy unless it says otherwise; an app registers its own types")
    func inputsAreRead() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "deviceToken", "provider": "input", "options": { "type": "token" } },
                { "name": "consent", "provider": "input", "options": { "type": "bool" }, "start": "eager" }
              ]
            }
            """
        var registry = ProviderRegistry.standard
        try registry.registerInput(DeviceToken.self, named: "token")
        let config = try ConfigLoader.load(text: text, file: "app.json", registry: registry)
        #expect(config.graph.inputNames == ["deviceToken", "consent"])
        #expect(config.specs.map(\.start) == [.lazy, .eager])
        #expect(config.graph.providerID(of: "deviceToken") == "input")
        #expect(throws: ProviderRegistry.RegistrationError.self) { try registry.registerInput(Int.self, named: "int") }
    }

    @Test("the provider id 'input' is reserved: a config's \"provider\": \"input\" always declares an input")
    func inputIDIsReserved() {
        var registry = ProviderRegistry.standard
        let error = #expect(throws: ProviderRegistry.RegistrationError.self) {
            try registry.register(InputNamedProvider())
        }
        #expect(error?.message.contains("reserved for inputs") == true)
        #expect(registry.provider("input") == nil)
    }

    @Test("an input without a value type, or with an unknown one: placed, with the known types")
    func problemsArePlaced() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "input" },
                { "name": "b", "provider": "input", "options": { "type": "strng" } }
              ]
            }
            """
        let error = try #require(loadError(text))
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(error)")
        #expect(
            lines.first?.hasPrefix("test.json:4:5: services[0]: input 'a' declares no value type") == true, "\(error)")
        #expect(
            lines.last?.hasPrefix(
                "test.json:5:62: services[1].options.type: unknown input type 'strng'; did you mean 'string'?") == true,
            "\(error)")
    }
}
