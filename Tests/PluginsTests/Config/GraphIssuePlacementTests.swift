import Container
import Foundation
import Plugins
import Testing

/// Graph errors are data: the loader places them in the file from their location and option,
/// never from their message; config codes wrap the graph's codes.
struct GraphIssuePlacementTests {
    /// A provider whose `validate` throws what it is given.
    struct RejectingProvider: ServiceProvider {
        let id = "rejecting"
        let error: any Error
        func validate(options: ServiceOptions) throws { throw error }
        func make(_ context: ProviderContext) async throws -> Int { 0 }
    }

    /// An error whose text looks like an ``OptionError``'s but is not one.
    struct LookalikeError: Error, CustomStringConvertible {
        var description: String { "option 'depth': too deep" }
    }

    static func registry(throwing error: any Error) throws -> ProviderRegistry {
        var registry = ProviderRegistry()
        try registry.register(RejectingProvider(error: error))
        return registry
    }

    static let rejectingConfig = """
        {
          "version": 1,
          "services": [
            { "name": "a", "provider": "rejecting", "options": { "depth": 99, "width": 1 } }
          ]
        }
        """

    @Test("an OptionError's option places the issue at that option, whatever its message says")
    func optionErrorIsPlacedByItsOptionField() throws {
        // The message names another option: the old loader parsed it and pointed at 'depth'.
        let thrown = OptionError.invalid("width", "must be smaller than 'depth'; see option 'depth'")
        let error = try #require(loadError(Self.rejectingConfig, registry: try Self.registry(throwing: thrown)))
        let issue = try #require(error.issues.first)
        #expect(error.issues.count == 1)
        #expect(issue.code == .graph(.invalidOptions))
        #expect(issue.location.keyPath == "services[0].options.width")
        #expect(issue.location.line == 4 && issue.location.column == 80)
        #expect(issue.service == "a")
        #expect(issue.option == "width")
        #expect((issue.underlying as? OptionError) == thrown)
    }

    @Test("an error that only looks like an OptionError stays at options: the message is not parsed")
    func messageTextIsNeverParsed() throws {
        let error = try #require(
            loadError(Self.rejectingConfig, registry: try Self.registry(throwing: LookalikeError())))
        let issue = try #require(error.issues.first)
        #expect(issue.location.keyPath == "services[0].options")
        #expect(issue.option == nil)
        #expect(issue.underlying is LookalikeError)
        #expect(issue.message == "service 'a' (provider 'rejecting'): option 'depth': too deep")
    }

    @Test("the graph validator's issue carries the option and the error, redacted when options are secret")
    func graphIssueFields() throws {
        let registry = try Self.registry(throwing: OptionError.invalid("token", "'tok_live_9f8e7d' is expired"))
        var options = ServiceOptions(["token": .string("tok_live_9f8e7d")])
        let plain = ServiceSpec(
            name: "a", provider: "rejecting", options: options, location: ConfigLocation(keyPath: "x"))
        #expect(throws: GraphError.self) { try ServiceGraph([plain], registry: registry) }
        do {
            _ = try ServiceGraph([plain], registry: registry)
        } catch {
            let issue = try #require(error.issues.first)
            #expect(issue.option == "token")
            #expect(issue.location.keyPath == "x.options")
            #expect((issue.underlying as? OptionError)?.message.contains("tok_live_9f8e7d") == true)
        }
        options.secretKeys = ["token"]
        let secret = ServiceSpec(name: "a", provider: "rejecting", options: options)
        do {
            _ = try ServiceGraph([secret], registry: registry)
        } catch {
            let issue = try #require(error.issues.first)
            let underlying = try #require(issue.underlying as? OptionError)
            #expect(underlying.option == "token")
            #expect(!underlying.message.contains("9f8e7d"))
            #expect(!issue.message.contains("9f8e7d"))
        }
        // Any other error is left out when options are secret: its text is not ours to redact.
        let other = try Self.registry(throwing: LookalikeError())
        do {
            _ = try ServiceGraph([secret], registry: other)
        } catch {
            #expect(error.issues.first?.underlying == nil)
        }
    }

    @Test("config codes wrap graph codes: one switch covers both, and the old names still work")
    func configCodesWrapGraphCodes() {
        #expect(ConfigError.Code.graph(.cycle) == .cycle)
        #expect(ConfigError.Code(GraphError.Code.typeMismatch) == .typeMismatch)
        #expect(ConfigError.Code.graph(.undeclaredScope).graphCode == .undeclaredScope)
        #expect(ConfigError.Code.unknownKey.graphCode == nil)
        #expect(ConfigError.Code.graph(.captiveDependency).description == "captiveDependency")
        #expect(ConfigError.Code.unknownService.description == "unknownService")
        func kind(_ code: ConfigError.Code) -> String {
            switch code {
            case .syntax: "syntax"
            case .unknownKey, .unknownService: "typo"
            case .graph(.cycle): "cycle"
            case .graph(.undeclaredScope): "scope"
            default: "other"
            }
        }
        #expect(kind(.cycle) == "cycle")
        #expect(kind(.graph(.undeclaredScope)) == "scope")
        #expect(kind(.unknownService) == "typo")
        #expect(kind(.graph(.invalidScope)) == "other")
    }

    // MARK: Scopes and groups, placed at their keys

    @Test("an undeclared scope is reported at the service's scope, with a suggestion; a bad name at scopes[i]")
    func scopeErrorsPointAtTheirKeys() throws {
        let text = """
            {
              "version": 1,
              "scopes": ["scene", "push", "scene", "bad#name"],
              "services": [
                { "name": "a", "provider": "simulated" },
                { "name": "b", "provider": "simulated", "dependsOn": ["a"], "scope": "scen" }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:3:31: scopes[2]: scope 'scene' is declared twice; remove one
                test.json:3:40: scopes[3]: scope name 'bad#name' may not contain '#', '/', spaces or control characters; \
                use letters, digits, '-' or '_'
                test.json:6:74: services[1].scope: service 'b' lives in scope 'scen', which is not declared; \
                did you mean 'scene'?
                """)
        #expect(error.codes == [.graph(.invalidScope), .graph(.invalidScope), .graph(.undeclaredScope)])
        #expect(error.issues.last?.service == "b")
    }

    @Test("a captive dependency is reported at the app service's dependsOn entry")
    func captiveDependencyPointsAtTheEntry() throws {
        let text = """
            {
              "version": 1,
              "scopes": ["scene"],
              "services": [
                { "name": "router", "provider": "simulated", "scope": "scene" },
                { "name": "app", "provider": "simulated", "dependsOn": ["router"] }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.graph(.captiveDependency)])
        #expect(error.issues.first?.location.keyPath == "services[1].dependsOn[0]")
        #expect(error.issues.first?.location.line == 6 && error.issues.first?.location.column == 61)
    }

    @Test("\"group:\" and \"group:?\" name no group: each is an error at its entry, with a fix that can be followed")
    func emptyGroupNameDependency() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "s1", "provider": "simulated", "group": "sinks" },
                { "name": "user", "provider": "simulated", "dependsOn": ["group:", "group:?"] }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.graph(.invalidName), .graph(.invalidName)])
        #expect(error.issues.map(\.location.keyPath) == ["services[1].dependsOn[0]", "services[1].dependsOn[1]"])
        #expect(error.issues.allSatisfy { $0.message.contains("names no group; write \"group:<name>\"") })
        #expect(!error.issues.contains { $0.message.contains("add \"group\": \"\"") })
    }

    @Test("group errors point at the member's group and at the dependsOn entry of an empty group")
    func groupErrorsPointAtTheirKeys() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "s1", "provider": "simulated", "group": "sinks" },
                { "name": "s2", "provider": "configuration", "options": { "path": "x.json" }, "group": "sinks" },
                { "name": "user", "provider": "simulated", "dependsOn": ["group:sinks", "group:sink"] },
                { "name": "fine", "provider": "simulated", "dependsOn": ["group:none?"] }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes == [.graph(.typeMismatch), .graph(.missingDependency)])
        let mismatch = try #require(error.issues.first)
        #expect(mismatch.location.keyPath == "services[0].group")
        #expect(mismatch.location.line == 4 && mismatch.location.column == 55)
        #expect(mismatch.message.contains("the members of group 'sinks' make different types"))
        let empty = try #require(error.issues.last)
        #expect(empty.location.keyPath == "services[2].dependsOn[1]")
        #expect(empty.location.line == 6 && empty.location.column == 77)
        #expect(empty.message.contains("group 'sink', which has no members; did you mean 'sinks'? Otherwise add"))
    }

    @Test("a config issue is the validator's issue type: its fields carried over, the same printed form")
    func configIssueIsTheGraphIssueType() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "app", "provider": "simulated", "dependsOn": ["routr"] }
              ]
            }
            """
        let error = try #require(loadError(text))
        let issue = try #require(error.issues.first)
        let graphCode = try #require(issue.code.graphCode)
        let graphIssue = GraphError.Issue(
            code: graphCode, message: issue.message, service: issue.service, location: issue.location)
        #expect(graphIssue.description == issue.description)
        #expect(
            issue.description
                == "test.json:4:61: services[0].dependsOn[0]: service 'app' depends on 'routr', which is not "
                + "declared; declare it or remove it from dependsOn")
        #expect(issue.service == "app")
    }
}
