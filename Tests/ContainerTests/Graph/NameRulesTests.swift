import TestSupport
import Testing

@testable import Container

@Suite("Names: no control characters, at most 256 bytes, also for services declared in code")
struct NameRulesTests {
    @Test("Control characters (C0, DEL, C1) are rejected with the character and its place")
    func controlCharacters() {
        for scalar in ["\u{0}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9F}"] {
            let problem = NameRules.problem(with: "ab" + scalar + "c")
            #expect(problem?.contains("(character 3)") == true, "\(problem ?? "nil")")
        }
        #expect(NameRules.problem(with: "a\u{0}")?.contains("control character U+0000") == true)
        #expect(NameRules.problem(with: "café-service_1.2") == nil)
        #expect(NameRules.visible("a\u{0}b\u{1B}[2J") == "a\\u{0}b\\u{1B}[2J")
    }

    @Test("Messages escape bidirectional formatting characters too, and cut after 64 printed characters")
    func messagesEscapeBidiAndCountEscapes() {
        // "abc" then RIGHT-TO-LEFT OVERRIDE: printed raw, the rest of the line would read backwards.
        #expect(NameRules.visible("abc\u{202E}def\u{2066}") == "abc\\u{202E}def\\u{2066}")
        #expect(NameRules.escapingControlCharacters("x\u{200F}y") == "x\\u{200F}y")
        #expect(NameRules.escapingControlCharacters("café ✓") == "café ✓")
        // Each escape counts all it prints: 64 control characters print about 64 characters, not 6 × 64.
        let shown = NameRules.visible(String(repeating: "\u{7}", count: 500))
        #expect(shown.count <= NameRules.visibleLength + 8 && shown.hasSuffix("…"), "\(shown.count)")
    }

    @Test("Names dependsOn would read as edge syntax are invalidName; written twice, an edge is a duplicate")
    func edgeSyntax() {
        let names = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<Int>("t?")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("group:g")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("member"), group: "g?") { _ in 1 },
            ])
        }
        #expect(names?.issues.map(\.code) == [.invalidName, .invalidName, .invalidName])
        let text = names?.description ?? ""
        #expect(text.contains("service name 't?' ends with '?', which dependsOn reads as an optional edge to 't'"))
        #expect(text.contains("service name 'group:g' starts with 'group:', which dependsOn reads as a group"))
        #expect(text.contains("group name 'g?' ends with '?'"))

        var optional = ServiceSpec(ServiceKey<Int>("t")) { _ in 1 }
        optional.isOptional = true
        let twice = #expect(throws: GraphError.self) {
            try ServiceGraph([
                optional,
                ServiceSpec(ServiceKey<Int>("m"), group: "g") { _ in 1 },
                ServiceSpec(ServiceKey<Int>("a"), dependsOn: ["t?", "t?"]) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["group:g", "group:g?"]) { _ in 1 },
            ])
        }
        #expect(twice?.issues.map(\.code) == [.duplicateDependency, .duplicateDependency])
        #expect(twice?.description.contains("service 'a' lists 't' twice in dependsOn") == true)
        #expect(twice?.description.contains("service 'b' lists group 'g' twice in dependsOn") == true)
    }

    @Test("A name longer than 256 bytes is rejected; 256 is fine")
    func length() {
        #expect(NameRules.problem(with: String(repeating: "a", count: 256)) == nil)
        let problem = NameRules.problem(with: String(repeating: "é", count: 129))
        #expect(problem?.contains("258 bytes long, over the limit of 256 bytes") == true)
    }

    @Test("Code-declared services and dependencies with control characters are invalidName, printed escaped")
    func codeDeclaredNames() {
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([
                ServiceSpec(ServiceKey<Int>("ok")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("bad\u{0}name")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("reader"), dependsOn: ["ok", "x\u{1B}[31m"]) { _ in 1 },
                ServiceSpec(ServiceKey<Int>(String(repeating: "n", count: 300))) { _ in 1 },
            ])
        }
        #expect(error?.issues.map(\.code) == [.invalidName, .invalidName, .invalidName])
        let text = error?.description ?? ""
        #expect(!text.unicodeScalars.contains { NameRules.isControl($0) && $0 != "\n" })
        #expect(text.contains("service name 'bad\\u{0}name' contains the control character U+0000 (character 4)"))
        #expect(
            text.contains("service 'reader' depends on 'x\\u{1B}[31m', which contains the control character U+001B"))
        #expect(text.contains("is 300 bytes long, over the limit of 256 bytes (NameRules.maxBytes)"))
    }
}
