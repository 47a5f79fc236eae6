import Container
import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// Every shipped config loads with the demo's plugins, as `container-demo --config` loads it (or, for
/// the deliberately broken one, fails exactly as documented).
struct ConfigLoadingTests {
    static let deliberatelyBroken: Set<String> = ["broken.json"]
    /// The `$data` root the shipped configs are loaded with (loading never touches it).
    static let pathRoots = ["data": "/app-data"]

    static func configFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: PackagePaths.configs.path)
            .filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test func configsFolderHoldsTheDocumentedFiles() throws {
        let files = Set(try Self.configFiles())
        for expected in ["app.json", "transient.json", "permanent.json", "broken.json", "startup-simulated.json"] {
            #expect(files.contains(expected), "Configs/\(expected) is missing")
        }
    }

    @Test func everyConfigExceptTheBrokenOnesLoads() throws {
        for name in try Self.configFiles() where !Self.deliberatelyBroken.contains(name) {
            let path = PackagePaths.configs.appendingPathComponent(name).path
            do {
                let config = try ConfigLoader.load(path: path, registry: .demo, pathRoots: Self.pathRoots)
                #expect(config.graph.count == config.specs.count)
                #expect(config.file == path)
            } catch {
                Issue.record("Configs/\(name) failed to load:\n\(error)")
            }
        }
    }

    @Test func appConfigDeclaresTheChainTwoScopesAndFourEntryPoints() throws {
        let path = PackagePaths.configs.appendingPathComponent("app.json").path
        let config = try ConfigLoader.load(path: path, registry: .demo, pathRoots: Self.pathRoots)
        #expect(config.graph.serviceNames == ["configuration", "database", "session", "sceneRouter", "pushDetail"])
        #expect(config.graph.scopeNames == ["scene", "push"])
        #expect(config.graph.lifetime(of: "sceneRouter") == .scope("scene"))
        #expect(config.graph.lifetime(of: "pushDetail") == .scope("push"))
        #expect(config.graph.dependencies(of: "database") == ["configuration"])
        #expect(config.graph.dependencies(of: "session") == ["database"])
        #expect(config.entryPoints.map(\.id) == ["launch", "scene", "deeplink", "push"])
        #expect(config.policy.failureMode == .continueIndependent)
        let database = try #require(config.specs.first { $0.name == "database" })
        #expect(database.provider.id == "sqlite")
        #expect(database.timeout == .milliseconds(5_000))
        #expect(
            database.retry
                == RetryPolicy(
                    maxAttempts: 3, initialDelay: .milliseconds(50), multiplier: 2,
                    maxDelay: .milliseconds(500)))
        // The database lives in the app's data folder ($data), not next to the config.
        #expect(try database.options.path("path") == "/app-data/app.sqlite")
        let configuration = try #require(config.specs.first { $0.name == "configuration" })
        // Relative paths resolve against the config file's folder, not the current directory.
        #expect(
            try configuration.options.path("path")
                == PackagePaths.configs.appendingPathComponent("settings/app-settings.json").path)
        #expect(configuration.defaultFailure == .permanent)
        #expect(configuration.location?.keyPath == "services[0]")
        #expect(configuration.location?.line == 7)
    }

    @Test func simulatedConfigsHaveNoEntryPoints() throws {
        for name in ["transient.json", "permanent.json", "startup-simulated.json"] {
            let config = try ConfigLoader.load(path: PackagePaths.configs.appendingPathComponent(name).path)
            #expect(config.entryPoints.isEmpty, "\(name)")
            #expect(config.specs.allSatisfy { $0.provider.id == "simulated" }, "\(name)")
        }
        let startup = try ConfigLoader.load(
            path: PackagePaths.configs.appendingPathComponent("startup-simulated.json").path)
        #expect((10...20).contains(startup.graph.count))
    }

    @Test func brokenConfigReportsEveryProblemAtOnce() throws {
        let path = "Configs/broken.json"
        let data = try Data(contentsOf: PackagePaths.configs.appendingPathComponent("broken.json"))
        do {
            _ = try ConfigLoader.load(data: data, file: path, registry: .demo)
            Issue.record("broken.json loaded")
        } catch {
            #expect(error.file == path)
            #expect(
                error.codes == [
                    .unknownProvider, .unknownKey, .missingDependency, .cycle, .wrongType, .invalidOptions,
                    .unknownEntryPoint,
                ])
            let expected = """
                Configs/broken.json:6:39: services[1].provider: service 'database' uses unknown provider 'sqlit'; \
                did you mean 'sqlite'? (known providers: configuration, session, simulated, simulatedNow, sqlite)
                Configs/broken.json:6:48: services[1].dependOn: unknown key 'dependOn'; did you mean 'dependsOn'?
                Configs/broken.json:7:63: services[2].dependsOn[0]: service 'session' depends on 'databse', \
                which is not declared; did you mean 'database'?
                Configs/broken.json:8:63: services[3].dependsOn: dependency cycle cacheA -> cacheB -> cacheA; \
                remove one of these dependencies
                Configs/broken.json:8:88: services[3].timeoutMs: must be a number, found a string
                Configs/broken.json:9:107: services[4].options.outcomes[1]: service 'cacheB' (provider 'simulated'): \
                option 'outcomes[1]': unknown outcome 'transiant'; did you mean 'transient'? \
                (known outcomes: ok, transient, permanent, hang)
                Configs/broken.json:11:29: entryPoints[1]: unknown entry point 'pusj'; did you mean 'push'? \
                (known entry points: deeplink, launch, push, scene)
                """
            #expect(
                error.description
                    == expected.replacing(
                        "known providers: configuration, session, simulated, simulatedNow, sqlite",
                        with:
                            "known providers: configuration, pushDetail, sceneRouter, session, simulated, simulatedNow, sqlite"
                    ))
            // Every line starts with file:line:column:.
            for line in error.description.split(separator: "\n") {
                #expect(line.wholeMatch(of: /Configs\/broken\.json:\d+:\d+: .*/) != nil, "\(line)")
            }
        }
    }

    @Test func theCompleteExampleOfTheREADMELoads() throws {
        let readme = try String(contentsOf: PackagePaths.configs.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "```json\n"))
        let end = try #require(readme[start.upperBound...].range(of: "```"))
        let example = String(readme[start.upperBound..<end.lowerBound])
        let config = try ConfigLoader.load(
            text: example, file: PackagePaths.configs.appendingPathComponent("example.json").path, registry: .demo,
            pathRoots: Self.pathRoots)
        #expect(
            config.graph.serviceNames == [
                "configuration", "database", "session", "remoteConfig", "sceneRouter", "pushDetail",
            ])
        #expect(config.entryPoints.count == 4)
        #expect(config.policy.maxAttempts == 5 && config.policy.retryAfter.initialDelay == .seconds(1))
        let remote = try #require(config.specs.first { $0.name == "remoteConfig" })
        #expect(remote.options.secretKeys == ["apiKey"])
        #expect(remote.retry.maxAttempts == 2)
    }

    @Test func loadingFromAPathThatDoesNotExistSaysSo() {
        do {
            _ = try ConfigLoader.load(path: "/nonexistent/folder/app.json")
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.codes == [.unreadableFile])
            #expect(
                error.description.hasPrefix(
                    "/nonexistent/folder/app.json:1:1: cannot read the config file: there is no such file"))
        }
    }

    @Test("A loaded config's redactor is its graph's: it hides the secretOptions values, nothing else")
    func configRedactor() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "remote", "provider": "simulated", "options": { "apiKey": "key_5a5a5a", "description": "open" },
                  "secretOptions": ["apiKey"] }
              ]
            }
            """
        let config = try ConfigLoader.load(text: text, file: "test.json")
        #expect(config.redactor === config.graph.redactor)
        #expect(config.redactor.redact("apiKey key_5a5a5a, description open") == "apiKey <redacted>, description open")
    }

    @Test("retry: without maxDelayMs, a first delay longer than 30 s is kept; one below the first delay is an error")
    func retryDelayCap() throws {
        func retry(_ fields: String) throws -> RetryPolicy {
            let text = """
                {"version": 1, "services": [
                  {"name": "a", "provider": "simulated", "retry": {"maxAttempts": 3, \(fields)}}
                ]}
                """
            return try #require(try ConfigLoader.load(text: text, file: "retry.json").specs.first?.retry)
        }
        let long = try retry(#""initialDelayMs": 60000"#)
        #expect(long.delay(beforeRetry: 1) == .seconds(60) && long.delay(beforeRetry: 2) == .seconds(60))
        let short = try retry(#""initialDelayMs": 20000"#)
        #expect(short.delay(beforeRetry: 1) == .seconds(20) && short.delay(beforeRetry: 2) == .seconds(30))
        let capped = try retry(#""initialDelayMs": 20000, "maxDelayMs": 25000"#)
        #expect(capped.delay(beforeRetry: 1) == .seconds(20) && capped.delay(beforeRetry: 2) == .seconds(25))
        #expect(throws: ConfigError.self) { try retry(#""initialDelayMs": 60000, "maxDelayMs": 10000"#) }
    }
}
