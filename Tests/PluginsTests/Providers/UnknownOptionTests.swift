import Container
import Testing

@testable import Plugins

/// Every standard provider refuses an option it does not read: a typo never silently gives
/// the default. A `description` and the options marked secret stay free-form.
struct UnknownOptionTests {
    @Test("sqlite, configuration and session name a misspelt option, with a suggestion")
    func typosAreErrors() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "configuration", "provider": "configuration", "options": { "path": "s.json", "pth": 1 } },
                  { "name": "database", "provider": "sqlite", "options": { "path": ":memory:", "busyTimeoutMS": 100 } },
                  { "name": "session", "provider": "session", "dependsOn": ["database"],
                    "options": { "databse": "database", "zzz": 1 } }
                ] }
                """))
        #expect(error.codes == [.invalidOptions, .invalidOptions, .invalidOptions])
        let text = error.description
        #expect(
            text.contains(
                "test.json:2:97: services[0].options.pth: service 'configuration' (provider 'configuration'): "
                    + "option 'pth': unknown option; did you mean 'path'? (configuration reads path, description, "
                    + "and the options listed in secretOptions)"))
        #expect(
            text.contains(
                "option 'busyTimeoutMS': unknown option; did you mean 'busyTimeoutMs'? (sqlite reads path, "
                    + "migrations, busyTimeoutMs, fileProtection, description, and the options listed in secretOptions)"
            ))
        #expect(
            text.contains(
                "option 'databse': unknown option; did you mean 'database'?; so is 'zzz' (session reads database, "
                    + "description, and the options listed in secretOptions)"))
    }

    @Test("a description and secret options are accepted by every standard provider")
    func freeFormKeysPass() throws {
        let config = try ConfigLoader.load(
            text: """
                { "version": 1, "services": [
                  { "name": "database", "provider": "sqlite",
                    "options": { "path": ":memory:", "description": "the store", "vaultKey": "k" },
                    "secretOptions": ["vaultKey"] },
                  { "name": "session", "provider": "session", "dependsOn": ["database"],
                    "options": { "description": "who is signed in" } }
                ] }
                """, file: "test.json", registry: .standard)
        #expect(config.graph.serviceNames.count == 2)
    }

    @Test("in Swift, typed options read back the same check")
    func typedOptionsRefuseToo() {
        #expect(throws: OptionError.self) {
            try SQLiteOptions(ServiceOptions(["path": .string("x"), "busyTimeout": .int(5)]))
        }
        #expect(throws: OptionError.self) { try SessionOptions(ServiceOptions(["db": .string("x")])) }
        #expect(throws: OptionError.self) {
            try ConfigurationOptions(ServiceOptions(["path": .string("x"), "paht": .string("y")]))
        }
    }
}
