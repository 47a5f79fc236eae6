import Container
import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// Overlays (profiles): applied in order on a base config before validation; their problems
/// are reported in their own files with line, column and a suggestion.
struct OverlayTests {
    static let base = """
        {
          "version": 1,
          "policy": { "failFast": false, "maxAttempts": 2 },
          "services": [
            { "name": "database", "provider": "simulated", "options": { "durationMs": 5 }, "timeoutMs": 100 },
            { "name": "session", "provider": "simulated", "dependsOn": ["database"], "retry": 2 },
            { "name": "cache", "provider": "simulated", "dependsOn": ["database"] }
          ]
        }
        """

    /// `line:column` of the `occurrence`-th `needle` in `text`, counted independently of the loader.
    static func place(of needle: String, in text: String, occurrence: Int = 0) -> String {
        var searchStart = text.startIndex
        var found = text.startIndex
        for _ in 0...occurrence {
            guard let range = text.range(of: needle, range: searchStart..<text.endIndex) else { return "none" }
            found = range.lowerBound
            searchStart = range.upperBound
        }
        let before = text[..<found]
        let line = before.filter { $0 == "\n" }.count + 1
        let column =
            before.distance(
                from: before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex, to: found) + 1
        return "\(line):\(column)"
    }

    static func load(_ overlays: [(String, String)], base: String = base) throws(ConfigError) -> ContainerConfig {
        try ConfigLoader.load(
            text: base, file: "base.json", overlays: overlays.map { ConfigOverlay(file: $0.0, text: $0.1) })
    }

    static func error(_ overlays: [(String, String)], base: String = base) -> ConfigError? {
        do {
            _ = try load(overlays, base: base)
            Issue.record("expected the overlays to be rejected")
            return nil
        } catch {
            return error
        }
    }

    static func spec(_ name: String, in config: ContainerConfig) -> ServiceSpec? {
        config.specs.first { $0.name == name }
    }

    @Test("a service object changes only the keys it gives; options are replaced as a whole")
    func overlayChangesOnlyItsKeys() throws {
        let overlay = """
            { "version": 1, "overlay": true,
              "services": [ { "name": "database", "options": { "outcomes": ["ok"] } } ] }
            """
        let config = try Self.load([("test.json", overlay)])
        let database = try #require(Self.spec("database", in: config))
        #expect(database.options.values == ["outcomes": .array([.string("ok")])], "options replaced, not merged")
        #expect(database.timeout == .milliseconds(100), "keys the overlay does not give are kept")
        #expect(database.provider.id == "simulated")
        #expect(Self.spec("session", in: config)?.retry.maxAttempts == 2)
        #expect(config.specs.map(\.name) == ["database", "session", "cache"])
        #expect(config.overlays == ["test.json"])
        #expect(config.file == "base.json")
    }

    @Test("overlays apply in order: the last one to set an option wins; policy keys merge")
    func overlaysApplyInOrder() throws {
        let first = """
            { "version": 1, "policy": { "failFast": true, "maxAttempts": 3 },
              "services": [ { "name": "database", "options": { "durationMs": 1 } } ] }
            """
        let second = """
            { "version": 1, "policy": { "maxAttempts": 5, "retryAfterMs": 10 },
              "services": [ { "name": "database", "options": { "durationMs": 2 } } ] }
            """
        let forward = try Self.load([("first.json", first), ("second.json", second)])
        #expect(Self.spec("database", in: forward)?.options.values["durationMs"] == .int(2))
        #expect(forward.policy.maxAttempts == 5)
        #expect(forward.policy.failureMode == .failFast, "a key only the first overlay gives is kept")
        #expect(forward.policy.retryAfter.initialDelay == .milliseconds(10))
        #expect(forward.graph.serviceNames == ["database", "session", "cache"])

        let backward = try Self.load([("second.json", second), ("first.json", first)])
        #expect(Self.spec("database", in: backward)?.options.values["durationMs"] == .int(1))
        #expect(backward.policy.maxAttempts == 3)

        let none = try Self.load([])
        #expect(none.policy.maxAttempts == 2)
        #expect(none.policy.failureMode == .continueIndependent)
    }

    @Test("add, remove, reset with null, replace entry points, add scopes")
    func addRemoveResetAndLists() throws {
        let overlay = """
            {
              "version": 1,
              "scopes": ["scene"],
              "services": [
                { "name": "cache", "remove": true },
                { "name": "router", "add": true, "provider": "simulated", "dependsOn": ["session"], "scope": "scene" },
                { "name": "database", "timeoutMs": null, "dependsOn": [] },
                { "name": "session", "retry": null }
              ],
              "entryPoints": ["launch"]
            }
            """
        // The base lists `push`, which reads a `Session` this graph does not make: the overlay's
        // list replaces it. `launch` is then what is checked, in the overlay.
        let base = Self.base.replacingOccurrences(of: "\n  ]\n}", with: "\n  ],\n  \"entryPoints\": [\"push\"]\n}")
        #expect(base.contains("\"entryPoints\": [\"push\"]"))
        #expect(throws: ConfigError.self) { try Self.load([], base: base) }
        let error = try #require(Self.error([("o.json", overlay)], base: base))
        #expect(!error.issues.isEmpty)
        #expect(error.issues.allSatisfy { $0.location.file == "o.json" && $0.location.keyPath == "entryPoints[0]" })

        let valid = overlay.replacingOccurrences(of: "[\"launch\"]", with: "[]")
        let config = try Self.load([("o.json", valid)], base: base)
        #expect(config.specs.map(\.name) == ["database", "session", "router"])
        #expect(Self.spec("database", in: config)?.timeout == nil)
        #expect(Self.spec("session", in: config)?.retry == RetryPolicy.none)
        let router = try #require(Self.spec("router", in: config))
        #expect(router.lifetime == .scope("scene"))
        #expect(router.location?.file == "o.json")
        #expect(router.location?.keyPath == "services[1]")
        #expect(config.graph.scopeNames == ["scene"])
        #expect(config.entryPoints.isEmpty)
    }

    @Test("a typo'd service name: its place in the overlay and a suggestion; a new one needs add")
    func typoedServiceName() throws {
        let overlay = """
            {
              "version": 1,
              "services": [
                { "name": "databse", "options": { "durationMs": 1 } },
                { "name": "sesion", "remove": true },
                { "name": "analytics", "provider": "simulated" }
              ]
            }
            """
        let error = try #require(Self.error([("overlays/test.json", overlay)]))
        let places = ["\"databse\"", "\"sesion\"", "\"analytics\""].map { Self.place(of: $0, in: overlay) }
        #expect(
            error.description == """
                overlays/test.json:\(places[0]): services[0].name: changes service 'databse', which the config does \
                not declare; did you mean 'database'? (to declare a new service, add "add": true)
                overlays/test.json:\(places[1]): services[1].name: removes service 'sesion', which the config does \
                not declare; did you mean 'session'?
                overlays/test.json:\(places[2]): services[2].name: changes service 'analytics', which the config \
                does not declare; to declare a new service, add "add": true
                """)
        #expect(error.codes == [.unknownService, .unknownService, .unknownService])
        #expect(error.file == "base.json")
    }

    @Test("a typo'd key: its place in the overlay and a suggestion, at the top, in a service, in the policy")
    func typoedKeys() throws {
        let overlay = """
            {
              "version": 1,
              "servces": [],
              "policy": { "maxAttempt": 3 },
              "services": [ { "name": "database", "timeouMs": 5, "remov": true } ]
            }
            """
        let error = try #require(Self.error([("o.json", overlay)]))
        let lines = error.issues.map(\.description)
        #expect(
            lines == [
                "o.json:\(Self.place(of: "\"servces\"", in: overlay)): servces: unknown key 'servces'; "
                    + "did you mean 'services'?",
                "o.json:\(Self.place(of: "\"maxAttempt\"", in: overlay)): policy.maxAttempt: unknown key "
                    + "'maxAttempt'; did you mean 'maxAttempts'?",
                "o.json:\(Self.place(of: "\"timeouMs\"", in: overlay)): services[0].timeouMs: unknown key 'timeouMs'; "
                    + "did you mean 'timeoutMs'?",
                "o.json:\(Self.place(of: "\"remov\"", in: overlay)): services[0].remov: unknown key 'remov'; "
                    + "did you mean 'remove'?",
            ])
        #expect(error.codes == [.unknownKey, .unknownKey, .unknownKey, .unknownKey])
    }

    @Test("graph errors about a value an overlay wrote point into the overlay; the base's stay in the base")
    func graphErrorsPointIntoTheFileThatWroteTheValue() throws {
        let overlay = """
            {
              "version": 1,
              "services": [
                { "name": "database", "options": { "outcomes": ["ok", "transiant"] } },
                { "name": "cache", "dependsOn": ["sesion"] }
              ]
            }
            """
        let base = Self.base.replacingOccurrences(
            of: "\"session\", \"provider\": \"simulated\"", with: "\"session\", \"provider\": \"simulatd\"")
        let error = try #require(Self.error([("o.json", overlay)], base: base))
        #expect(error.issues.map(\.location.file) == ["base.json", "o.json", "o.json"])
        #expect(
            error.issues.map(\.location.keyPath) == [
                "services[1].provider", "services[0].options.outcomes[1]", "services[1].dependsOn[0]",
            ])
        #expect(error.codes == [.unknownProvider, .invalidOptions, .missingDependency])
        func place(_ issue: ConfigError.Issue) -> String { "\(issue.location.line ?? 0):\(issue.location.column ?? 0)" }
        #expect(place(error.issues[0]) == Self.place(of: "\"simulatd\"", in: base))
        #expect(place(error.issues[1]) == Self.place(of: "\"transiant\"", in: overlay))
        #expect(error.issues[1].option == "outcomes[1]")
        #expect(place(error.issues[2]) == Self.place(of: "\"sesion\"", in: overlay))
        #expect(error.issues[2].message.contains("did you mean 'session'?"))
    }

    @Test("depending on a service an overlay removed says so")
    func dependencyOnARemovedService() throws {
        let overlay = """
            { "version": 1, "services": [ { "name": "database", "remove": true } ] }
            """
        let error = try #require(Self.error([("o.json", overlay)]))
        #expect(error.codes == [.missingDependency, .missingDependency])
        #expect(error.issues.map(\.location.keyPath) == ["services[1].dependsOn[0]", "services[2].dependsOn[0]"])
        #expect(error.issues.allSatisfy { $0.location.file == "base.json" })
        let removal = Self.place(of: "true", in: overlay)
        #expect(
            error.issues.allSatisfy { $0.message.hasSuffix("(an overlay removes 'database' at o.json:\(removal))") })
    }

    @Test("add of a declared service, add and remove together, other keys on a removed one, null provider")
    func contradictoryEntries() throws {
        let overlay = """
            {
              "version": 1,
              "overlay": false,
              "services": [
                { "name": "cache", "add": true, "provider": "simulated" },
                { "name": "session", "add": true, "remove": true },
                { "name": "database", "remove": true, "timeoutMs": 5 },
                { "name": "cache", "provider": null }
              ]
            }
            """
        let error = try #require(Self.error([("o.json", overlay)]))
        #expect(error.codes == [.invalidValue, .invalidValue, .invalidValue, .invalidValue, .wrongType])
        let messages = error.issues.map(\.message)
        #expect(messages[0].hasPrefix("an overlay says \"overlay\": true or leaves the key out"))
        #expect(messages[1].hasPrefix("service 'cache' is already declared (base.json:7:5); drop \"add\": true"))
        #expect(messages[2].hasPrefix("service 'session' cannot be both added and removed"))
        #expect(messages[3].hasPrefix("service 'database' is removed, so 'timeoutMs' has no effect"))
        #expect(messages[4].hasPrefix("'provider' cannot be reset with null"))
    }

    @Test("a config that uses overlay keys is told so")
    func overlayKeysInAConfig() throws {
        let text = """
            { "version": 1, "overlay": true, "services": [ { "name": "a", "provider": "simulated", "add": true } ] }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.unknownKey, .unknownKey])
        #expect(error.issues[0].message.hasPrefix("unknown key 'overlay': this file is an overlay; load it on top"))
        #expect(
            error.issues[1].message.hasPrefix("unknown key 'add': \"add\": true declares a new service in an overlay"))
    }

    @Test("relative paths in an overlay's options start at the overlay's folder")
    func overlayPathsAreRelativeToTheOverlay() throws {
        let overlay = """
            { "version": 1, "services": [ { "name": "configuration", "add": true, "provider": "configuration",
              "options": { "path": "../settings/offline.json" } } ] }
            """
        let config = try ConfigLoader.load(
            text: Self.base, file: "/configs/app.json",
            overlays: [ConfigOverlay(file: "/configs/overlays/offline.json", text: overlay)])
        let options = try #require(Self.spec("configuration", in: config)?.options)
        #expect(options.baseDirectory == "/configs/overlays")
        #expect(try options.path("path") == "/configs/overlays/../settings/offline.json")
        #expect(Self.spec("database", in: config)?.options.baseDirectory == "/configs")
    }

    @Test("an overlay that cannot be read is named; syntax errors of several files are reported together")
    func unreadableAndMalformedOverlays() throws {
        let app = PackagePaths.configs.appendingPathComponent("app.json").path
        do {
            _ = try ConfigLoader.load(path: app, overlays: ["/nonexistent/overlay.json"], pathRoots: ["data": "/tmp"])
            Issue.record("expected the missing overlay to be reported")
        } catch {
            #expect(error.codes == [.unreadableFile])
            #expect(
                error.description.hasPrefix(
                    "/nonexistent/overlay.json:1:1: cannot read the overlay file: there is no such file"))
        }
        let error = try #require(Self.error([("a.json", "{ \"version\": 1, }"), ("b.json", "[1, 2")]))
        #expect(error.codes == [.syntax, .syntax])
        #expect(error.issues.map(\.location.file) == ["a.json", "b.json"])
        let tooMany = Array(repeating: ("o.json", "{ \"version\": 1 }"), count: ConfigLimits.maxOverlays + 1)
        #expect(Self.error(tooMany)?.codes == [.limitExceeded])
    }

    @Test("the shipped overlays load on app.json; test.json gives an in-memory database with a known session")
    func shippedOverlays() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let overlays = PackagePaths.configs.appendingPathComponent("overlays")
        let test = overlays.appendingPathComponent("test.json").path
        let offline = overlays.appendingPathComponent("offline.json").path
        let config = try ConfigLoader.load(
            path: fixture.appConfig, overlays: [test], registry: .demo, pathRoots: fixture.pathRoots)
        let database = try #require(Self.spec("database", in: config))
        #expect(database.options.values["path"] == .string(":memory:"))
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let services = try await container.start()
        #expect(try services[.session].userID == "test-user")
        _ = try await container.shutdown()
        #expect(!FileManager.default.fileExists(atPath: fixture.databasePath))

        let both = try ConfigLoader.load(
            path: fixture.appConfig, overlays: [offline, test], registry: .demo, pathRoots: fixture.pathRoots)
        #expect(both.policy.failureMode == .failFast)
        #expect(Self.spec("database", in: both)?.retry == RetryPolicy.none)
        let settings = try #require(try Self.spec("configuration", in: both)?.options.path("path"))
        #expect(try ConfigurationProvider.read(path: settings).environment == "offline")
    }

    @Test("policy.retryAfterMs alone doubles up to 30 s; retryAfterMaxMs caps it")
    func retryAfterKeys() throws {
        func policy(_ keys: String) throws -> BuildPolicy {
            try ConfigLoader.load(text: "{ \"version\": 1, \"policy\": \(keys), \"services\": [] }", file: "p.json")
                .policy
        }
        let alone = try policy(#"{ "retryAfterMs": 100 }"#).retryAfter
        #expect(alone.delay(beforeRetry: 1) == .milliseconds(100))
        #expect(alone.delay(beforeRetry: 2) == .milliseconds(200))
        #expect(alone.delay(beforeRetry: 20) == .seconds(30))
        let capped = try policy(#"{ "retryAfterMs": 100, "retryAfterMaxMs": 150 }"#).retryAfter
        #expect(capped.delay(beforeRetry: 2) == .milliseconds(150))
        #expect(try policy("{}").retryAfter == .none)
    }

    @Test("the README's overlay example applies to its complete example")
    func readmeOverlayExample() throws {
        let readme = try String(contentsOf: PackagePaths.configs.appendingPathComponent("README.md"), encoding: .utf8)
        func jsonBlock(after marker: String) throws -> String {
            let heading = try #require(readme.range(of: marker))
            let start = try #require(readme[heading.upperBound...].range(of: "```json\n"))
            let end = try #require(readme[start.upperBound...].range(of: "```"))
            return String(readme[start.upperBound..<end.lowerBound])
        }
        let base = try jsonBlock(after: "### A complete example")
        let overlay = try jsonBlock(after: "### The overlay format")
        let config = try ConfigLoader.load(
            text: base, file: "/configs/example.json",
            overlays: [ConfigOverlay(file: "/configs/o.json", text: overlay)], registry: .demo,
            pathRoots: ["data": "/app-data"])
        // remoteConfig removed, analytics added after the services declared before it.
        #expect(
            config.graph.serviceNames == [
                "configuration", "database", "session", "sceneRouter", "pushDetail", "analytics",
            ])
        #expect(Self.spec("database", in: config)?.options.values["path"] == .string(":memory:"))
        #expect(Self.spec("database", in: config)?.timeout == .milliseconds(500))
        #expect(Self.spec("session", in: config)?.retry == RetryPolicy.none)
        #expect(config.policy.maxAttempts == 1)
        #expect(config.entryPoints.map(\.id) == ["launch"])
        // "scene" is declared already: kept once.
        #expect(config.graph.scopeNames == ["scene", "push"])
    }
}
