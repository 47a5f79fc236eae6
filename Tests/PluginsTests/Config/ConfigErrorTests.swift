import Container
import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// Each class of loading error, with the message a person acts on.
struct ConfigErrorTests {
    // MARK: JSON syntax, with line and column

    @Test func missingCommaBetweenMembersNamesLineAndColumn() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated" "dependsOn": [] }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.syntax])
        #expect(
            error.description == """
                test.json:4:44: invalid JSON: expected ',' or '}' after the value of "provider", found '"'; \
                add a comma between members
                """)
    }

    @Test func trailingCommaIsExplained() throws {
        let text = "{\n  \"version\": 1,\n  \"services\": [],\n}\n"
        let error = try #require(loadError(text))
        #expect(
            error.description
                == "test.json:4:1: invalid JSON: JSON does not allow a trailing comma before '}'; remove the comma")
    }

    @Test func commentsAndUnterminatedInputAreExplained() throws {
        let comment = try #require(loadError("{\n  // services\n  \"version\": 1\n}"))
        #expect(comment.description.hasPrefix("test.json:2:3: invalid JSON: JSON does not allow comments"))
        let unterminated = try #require(loadError("{\n  \"version\": 1,\n  \"services\": [\n"))
        #expect(
            unterminated.description == """
                test.json:4:1: invalid JSON: unexpected end of file inside an array opened at line 3, column 15; expected ']'
                """)
        let string = try #require(loadError("{ \"version\": \"1 }"))
        #expect(string.description.hasPrefix("test.json:1:14: invalid JSON: unterminated string; add the closing"))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        // "é" is two UTF-8 bytes but one column.
        let error = try #require(loadError("{ \"é\": 1 x }"))
        #expect(error.issues.first?.location.column == 10)
    }

    // MARK: Types and unknown keys, with key paths and suggestions

    @Test func wrongTypesNameTheKeyPath() throws {
        let text = """
            {
              "version": 1,
              "policy": { "failFast": "yes" },
              "services": [
                { "name": "a", "provider": "simulated" },
                { "name": "b", "provider": "simulated", "dependsOn": "a", "retry": { "maxAttempts": 0 } }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:3:27: policy.failFast: must be true or false, found a string
                test.json:6:58: services[1].dependsOn: must be a list of service names (an array of strings), \
                found a string; write ["a"]
                test.json:6:89: services[1].retry.maxAttempts: must be an integer of at least 1 (runs, the first included), found 0
                """)
    }

    @Test("a longest delay below the first one is an invalid value, in a retry and in the policy")
    func capsBelowTheFirstDelay() throws {
        let text = """
            {"version": 1, "policy": { "retryAfterMs": 5000, "retryAfterMaxMs": 1000 },
             "services": [{ "name": "a", "provider": "simulated",
                            "retry": { "maxAttempts": 3, "initialDelayMs": 200, "maxDelayMs": 50.5 } }]}
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.invalidValue, .invalidValue])
        #expect(
            error.description == """
                test.json:1:69: policy.retryAfterMaxMs: is 1000 ms, less than retryAfterMs (5000 ms), which it would cut \
                short; raise it to at least 5000, or lower retryAfterMs
                test.json:3:83: services[0].retry.maxDelayMs: is 50.5 ms, less than initialDelayMs (200 ms), which it \
                would cut short; raise it to at least 200, or lower initialDelayMs
                """)
        let equal = """
            {"version": 1, "policy": { "retryAfterMs": 5000, "retryAfterMaxMs": 5000 },
             "services": [{ "name": "a", "provider": "simulated", "retry": { "maxAttempts": 2, "maxDelayMs": 10 } }]}
            """
        #expect(try ConfigLoader.load(text: equal, file: "test.json", registry: .standard).graph.serviceNames == ["a"])
    }

    @Test("a description is ignored, but must be text wherever it is allowed")
    func descriptionsMustBeStrings() throws {
        let text = """
            {
              "version": 1, "description": 5,
              "scopes": [{ "name": "scene", "description": ["a"] }],
              "services": [{ "name": "a", "provider": "simulated", "description": { "note": "x" } }]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.wrongType, .wrongType, .wrongType])
        #expect(
            Set(error.issues.compactMap(\.location.keyPath)) == [
                "description", "scopes[0].description", "services[0].description",
            ])
        let fine = """
            {"version": 1, "description": "notes", "services": [{ "name": "a", "provider": "simulated", "description": "" }]}
            """
        #expect(try ConfigLoader.load(text: fine, file: "test.json", registry: .standard).graph.serviceNames == ["a"])
    }

    @Test("maxAttempts below 1 is an invalid value, in the policy as in a retry; above the limit, a limit exceeded")
    func attemptCodes() throws {
        let text = """
            {"version": 1, "policy": { "maxAttempts": 0 },
             "services": [{ "name": "a", "provider": "simulated", "retry": { "maxAttempts": 0 } }]}
            """
        #expect(try #require(loadError(text)).codes == [.invalidValue, .invalidValue])
        let over =
            #"{"version": 1, "policy": { "maxAttempts": 1001 }, "services": [{ "name": "a", "provider": "simulated" }]}"#
        #expect(try #require(loadError(over)).codes == [.limitExceeded])
    }

    @Test func unknownKeysSuggestTheNearMiss() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated" },
                { "name": "b", "provider": "simulated", "dependOn": ["a"], "timeout": 100, "colour": "red" }
              ],
              "entrypoints": []
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.unknownKey, .unknownKey, .unknownKey, .unknownKey])
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "test.json:5:45: services[1].dependOn: unknown key 'dependOn'; did you mean 'dependsOn'?",
                "test.json:5:64: services[1].timeout: unknown key 'timeout'; did you mean 'timeoutMs'?",
                "test.json:5:80: services[1].colour: unknown key 'colour'; the keys allowed here are: name, provider, "
                    + "dependsOn, options, secretOptions, timeoutMs, retry, failure, scope, group, start, optional, sync, isolation, priority, description",
                "test.json:7:3: entrypoints: unknown key 'entrypoints'; did you mean 'entryPoints'?",
            ])
    }

    @Test func versionIsRequiredAndChecked() throws {
        let missing = try #require(loadError("{ \"services\": [] }"))
        #expect(missing.description == "test.json:1:1: missing required key 'version'; add \"version\": 1")
        let future = try #require(loadError("{ \"version\": 2, \"services\": [] }"))
        #expect(
            future.description
                == "test.json:1:14: version: config format version 2 is not supported; this loader reads version 1")
    }

    @Test func duplicateKeysAndBadFailureWordsAreReported() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated", "name": "b", "failure": "transiant" }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:4:45: services[0].name: key 'name' appears twice in this object (first at line 4); remove one
                test.json:4:69: services[0].failure: unknown failure kind 'transiant'; did you mean 'transient'?
                """)
    }

    // MARK: Providers, entry points, options

    @Test func unknownProviderListsTheKnownOnes() throws {
        let text = """
            {
              "version": 1,
              "services": [ { "name": "cache", "provider": "redis" } ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:3:48: services[0].provider: service 'cache' uses unknown provider 'redis' \
                (known providers: configuration, session, simulated, simulatedNow, sqlite)
                """)
    }

    @Test func unknownEntryPointSuggestsAndListsTheKnownOnes() throws {
        let text = """
            {
              "version": 1,
              "services": [],
              "entryPoints": ["lanch", "widget"]
            }
            """
        let error = try #require(loadError(text, registry: .demo))
        #expect(
            error.description == """
                test.json:4:19: entryPoints[0]: unknown entry point 'lanch'; did you mean 'launch'? \
                (known entry points: deeplink, launch, push, scene)
                test.json:4:28: entryPoints[1]: unknown entry point 'widget' (known entry points: deeplink, launch, push, scene)
                """)
    }

    @Test func anEntryPointListedTwiceIsAnError() throws {
        // Each entry point is one caller named by its id: two would share a name in the trace.
        let text = #"{ "version": 1, "services": [], "entryPoints": ["deeplink", "deeplink"] }"#
        let error = try #require(loadError(text, registry: .demo))
        #expect(error.codes.filter { $0 == .invalidValue }.count == 1)
        #expect(
            error.description.contains(
                "test.json:1:61: entryPoints[1]: entry point 'deeplink' is listed twice (first at entryPoints[0]); "
                    + "list each entry point once"))
        // Its requirements are reported once, for the first listing.
        #expect(!error.description.contains("entryPoints[1]: entry point 'deeplink' requires"))
    }

    @Test func entryPointsNeedARegistryThatHoldsThem() throws {
        // The standard registry holds providers only: an app registers its own entry points.
        let text = #"{ "version": 1, "services": [], "entryPoints": ["launch"] }"#
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:1:49: entryPoints[0]: unknown entry point 'launch' (the registry holds no entry points: \
                register the app's own with register(entryPoint:) and load the config with that registry)
                """)
    }

    @Test func entryPointRequiringAnUndeclaredServiceIsAnError() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "configuration", "provider": "configuration", "options": { "path": "settings.json" } }
              ],
              "entryPoints": ["deeplink", "launch"]
            }
            """
        let error = try #require(loadError(text, registry: .demo))
        #expect(error.codes == [.unknownRequirement, .unknownRequirement, .unknownRequirement])
        #expect(
            error.description == """
                test.json:6:19: entryPoints[0]: entry point 'deeplink' requires service 'session', which is not \
                declared; declare a service named 'session'
                test.json:6:31: entryPoints[1]: entry point 'launch' requires service 'database', which is not \
                declared; declare a service named 'database'
                test.json:6:31: entryPoints[1]: entry point 'launch' requires service 'session', which is not \
                declared; declare a service named 'session'
                """)
    }

    @Test func scopedEntryPointsNeedTheirScope() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "configuration", "provider": "configuration", "options": { "path": "settings.json" } }
              ],
              "entryPoints": ["scene"]
            }
            """
        let error = try #require(loadError(text, registry: .demo))
        #expect(error.codes == [.unknownRequirement, ConfigError.Code(GraphError.Code.undeclaredScope)])
        #expect(error.description.contains("entry point 'scene' requires service 'sceneRouter', which is not declared"))
        #expect(error.description.contains("entry point 'scene' runs in scope 'scene', which is not declared"))
    }

    @Test func entryPointReadingAServiceOfAnotherTypeIsAnError() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "configuration", "provider": "configuration", "options": { "path": "settings.json" } },
                { "name": "session", "provider": "simulated" }
              ],
              "entryPoints": ["deeplink"]
            }
            """
        let error = try #require(loadError(text, registry: .demo))
        #expect(error.codes == [.typeMismatch])
        #expect(
            error.description == """
                test.json:7:19: entryPoints[0]: entry point 'deeplink' reads service 'session' as Session, but its \
                provider 'simulated' makes SimulatedValue; use a provider that makes Session or change the key's type
                """)
    }

    @Test func graphErrorsCarryTheLineOfTheOffendingValue() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated", "dependsOn": ["c"] },
                { "name": "b", "provider": "simulated", "dependsOn": ["a"] },
                { "name": "c", "provider": "simulated", "dependsOn": ["b", "b"] },
                { "name": "a", "provider": "simulated" }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:4:58: services[0].dependsOn: dependency cycle a -> c -> b -> a; remove one of these dependencies
                test.json:6:64: services[2].dependsOn[1]: service 'c' lists 'b' twice in dependsOn; remove one
                test.json:7:15: services[3].name: service 'a' is declared twice (first declared at test.json:4:5: \
                services[0]); rename or remove one
                """)
    }

    @Test func providerOptionErrorsPointAtTheOption() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "a", "provider": "simulated", "options": { "durationMs": -5 } },
                { "name": "db", "provider": "sqlite", "options": {} }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:4:72: services[0].options.durationMs: service 'a' (provider 'simulated'): \
                option 'durationMs': must not be negative, found -5
                test.json:5:54: services[1].options: service 'db' (provider 'sqlite'): \
                option 'path' is required; add it to the service's "options"
                """)
    }

    @Test func missingProviderDoesNotCascade() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "session" }, { "name": "b", "provider": "simulated", "dependsOn": ["session"] },
                { "name": "configuration", "provider": "configuration", "options": { "path": "settings.json" } }
              ],
              "entryPoints": ["deeplink"]
            }
            """
        let error = try #require(loadError(text, registry: .demo))
        // One problem, not three: b's dependency exists, and push's type check is skipped.
        #expect(error.codes == [.missingKey])
        #expect(
            error.description.hasPrefix(
                "test.json:4:5: services[0]: missing required key 'provider' in service 'session'; known providers: "))
    }

    // MARK: Secrets

    @Test func secretOptionValuesNeverAppearInErrors() throws {
        struct TokenProvider: ServiceProvider {
            let id = "remote"
            func make(_ context: ProviderContext) async throws -> String { "" }
            func validate(options: ServiceOptions) throws {
                let token = try options.string("token")
                // A careless provider quoting the secret in its message.
                if token.count < 20 { throw OptionError.invalid("token", "token '\(token)' is too short") }
            }
        }
        var registry = ProviderRegistry.standard
        try registry.register(TokenProvider())
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "api", "provider": "remote", "options": { "token": "s3cr3t-t0ken" }, "secretOptions": ["token", "tokn"] }
              ]
            }
            """
        let error = try #require(loadError(text, registry: registry))
        #expect(!error.description.contains("s3cr3t-t0ken"))
        #expect(
            error.description == """
                test.json:4:66: services[0].options.token: service 'api' (provider 'remote'): option 'token': \
                token '<redacted>' is too short
                test.json:4:111: services[0].secretOptions[1]: secretOptions names 'tokn', which is not an option of \
                service 'api'; did you mean 'token'?
                """)
        let config = try ConfigLoader.load(
            text: text.replacingOccurrences(of: ", \"tokn\"", with: "")
                .replacingOccurrences(of: "s3cr3t-t0ken", with: "a-long-enough-secret-token"),
            file: "ok.json", registry: registry)
        #expect(config.specs[0].options.secretKeys == ["token"])
        #expect(!config.specs[0].options.description.contains("a-long-enough-secret-token"))
    }

    @Test func secretsInsideListsAreRedactedToo() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "a", "provider": "simulated", "options": { "outcomes": ["ok", "hunter2-secret"] },
                    "secretOptions": ["outcomes"] } ] }
                """))
        #expect(!error.description.contains("hunter2"))
        #expect(error.description.contains("unknown outcome '<redacted>'"))
    }

    @Test func hugeOrInfiniteNumbersAreErrorsNotCrashes() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "a", "provider": "simulated", "timeoutMs": 1e300 },
                  { "name": "b", "provider": "simulated", "timeoutMs": 1e400 },
                  { "name": "c", "provider": "simulated",
                    "retry": { "maxAttempts": 2, "initialDelayMs": 1e300, "multiplier": 1e308, "maxDelayMs": 5 } }
                ] }
                """))
        #expect(error.codes == [.limitExceeded, .limitExceeded, .limitExceeded, .limitExceeded])
        #expect(
            error.description.contains(
                "services[0].timeoutMs: 1e+300 is over the limit of 3600000 ms, one hour (ConfigLimits.maxTimeoutMs)"))
        #expect(
            error.description.contains(
                "services[2].retry.multiplier: 1e+308 is over the limit of 100 (ConfigLimits.maxRetryMultiplier)"))
    }
}
