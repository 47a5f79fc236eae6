import Container
import Plugins
import Testing

@Suite("Nested scopes in a config (Scopes)")
struct NestedScopeConfigTests {
    @Test("a scope may name a parent; the string form stays valid; both mix in one list")
    func parents() throws {
        let text = """
            {
              "version": 1,
              "scopes": ["account", { "name": "scene", "parent": "account" }, "push"],
              "services": [
                { "name": "session", "provider": "simulated" },
                { "name": "store", "provider": "simulated", "dependsOn": ["session"], "scope": "account" },
                { "name": "router", "provider": "simulated", "dependsOn": ["store"], "scope": "scene" }
              ]
            }
            """
        let config = try ConfigLoader.load(text: text, file: "test.json", registry: .standard)
        #expect(config.graph.scopeNames == ["account", "scene", "push"])
        #expect(config.graph.parentScope(of: "scene") == "account" && config.graph.parentScope(of: "push") == nil)
        #expect(config.graph.scopes[1] == ServiceGraph.Scope("scene", parent: "account"))
    }

    @Test("unknown parents, cycles and chains over the depth limit are errors at the scope's parent key")
    func badParents() throws {
        let deep = (1...9).map { "{ \"name\": \"l\($0)\", \"parent\": \"l\($0 - 1)\" }" }.joined(separator: ", ")
        let text = """
            {
              "version": 1,
              "scopes": [
                "account", { "name": "scene", "parent": "acount" },
                { "name": "a", "parent": "b" }, { "name": "b", "parent": "a" },
                "l0", \(deep)
              ],
              "services": [{ "name": "session", "provider": "simulated" }]
            }
            """
        let error = try #require(loadError(text))
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(error.description)")
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "test.json:4:45: scopes[1].parent: scope 'scene' names parent scope 'acount', which is not "
                        + "declared; did you mean 'account'?")
            })
        #expect(lines.contains { $0.contains("scopes[2].parent: scope 'a' is nested in itself: a -> b -> a") })
        #expect(lines.contains { $0.contains("scopes[3].parent: scope 'b' is nested in itself: b -> a -> b") })
        #expect(lines.contains { $0.contains("scopes[13].parent: scope 'l9'") && $0.contains("-> ...)") })
        #expect(
            lines.contains {
                $0.contains("scopes[12].parent: scope 'l8' is nested more than 8 deep (l8 -> l7")
                    && $0.hasSuffix(
                        "l1 -> l0); nest it in a scope nearer the top")
            })
        #expect(error.codes.allSatisfy { $0 == .graph(.undeclaredScope) || $0 == .graph(.invalidScope) })
    }

    @Test("a scope with a bad name gets one error: its child, services and edges do not repeat it as undeclared")
    func badScopeNameDoesNotCascade() throws {
        let long = String(repeating: "s", count: 100)
        let text = """
            {
              "version": 1,
              "scopes": ["\(long)", { "name": "child", "parent": "\(long)" }, "ok", { "name": "leaf", "parent": "nope" }],
              "services": [
                { "name": "a", "provider": "simulated" },
                { "name": "b", "provider": "simulated", "scope": "\(long)", "dependsOn": ["a"] },
                { "name": "c", "provider": "simulated", "scope": "child", "dependsOn": ["b"] }
              ]
            }
            """
        let error = try #require(loadError(text))
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(error.description)")
        // The name is quoted cut short, as every other long value in a message.
        let quoted = String(repeating: "s", count: NameRules.visibleLength) + "…"
        #expect(
            lines.first?.hasPrefix("test.json:3:14: scopes[0]: scope name '\(quoted)' is longer than 64 bytes") == true)
        // A later scope's place counts the rejected one: `leaf` is scopes[3].
        #expect(lines.last?.contains("scopes[3].parent: scope 'leaf' names parent scope 'nope'") == true)
    }

    @Test("captive dependencies follow the chain: a parent's service reading a child's names both places")
    func captiveAlongTheChain() throws {
        let text = """
            {
              "version": 1,
              "scopes": ["account", { "name": "scene", "parent": "account" }, "push"],
              "services": [
                { "name": "store", "provider": "simulated", "dependsOn": ["router"], "scope": "account" },
                { "name": "router", "provider": "simulated", "scope": "scene" },
                { "name": "detail", "provider": "simulated", "dependsOn": ["router"], "scope": "push" }
              ]
            }
            """
        let error = try #require(loadError(text))
        #expect(
            error.description == """
                test.json:5:63: services[0].dependsOn[0]: service 'store' of scope 'account' depends on 'router' of \
                scope 'scene' (nested in 'account') (declared at test.json:6:5: services[1]), which it would outlive; \
                make 'store' live in scope 'scene' too, or remove the dependency
                test.json:7:64: services[2].dependsOn[0]: service 'detail' of scope 'push' depends on 'router' of \
                scope 'scene' (declared at test.json:6:5: services[1]); a scope sees only its own services and those \
                of the scopes it is nested in (and the app's): depend on one of those instead, or move one of them
                """)
        #expect(error.codes == [.graph(.captiveDependency), .graph(.crossScopeDependency)])
    }

    @Test("a scope object is checked like any object: unknown keys, a missing name, wrong types")
    func scopeObjects() throws {
        let text = """
            {
              "version": 1,
              "scopes": [{ "name": "scene", "parnt": "account" }, { "parent": "x" }, 3],
              "services": [{ "name": "session", "provider": "simulated" }]
            }
            """
        let error = try #require(loadError(text))
        #expect(error.codes.count == 3, "\(error.description)")
        #expect(error.description.contains("scopes[0].parnt"))
        #expect(error.description.contains("scopes[1]: missing required key 'name'"))
        #expect(error.description.contains("scopes[2]"))
    }

    @Test("an overlay may nest a scope the config declares")
    func overlayNests() throws {
        let base = """
            {
              "version": 1,
              "scopes": ["account", "scene"],
              "services": [{ "name": "session", "provider": "simulated" }]
            }
            """
        let overlay = """
            { "version": 1, "overlay": true, "scopes": [{ "name": "scene", "parent": "account" }] }
            """
        let config = try ConfigLoader.load(
            text: base, file: "base.json", overlays: [ConfigOverlay(file: "nest.json", text: overlay)],
            registry: .standard)
        #expect(config.graph.parentScope(of: "scene") == "account")
    }
}
