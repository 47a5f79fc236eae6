import Foundation
import Testing

@testable import Container

/// A type named as the docs' example app names its database.
private struct Database {}

/// The remedies error messages print are Swift that compiles: each form the messages use is
/// printed for the names and types of the TypedDependencies article's example, and must appear
/// there verbatim, where `scripts/check-doc-snippets.sh` (CI) compiles it.
@Suite("Remedies in error messages are Swift that compiles")
struct SwiftRemedyTests {
    /// The TypedDependencies article's text.
    static func article() throws -> String {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = tests.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(
            contentsOf: root.appendingPathComponent("Sources/Container/Documentation.docc/TypedDependencies.md"),
            encoding: .utf8)
    }

    @Test("every form a message prints is in the article's compiled example, as printed")
    func formsAreInTheCompiledArticle() throws {
        let article = try Self.article()
        let forms = [
            SwiftRemedy.dependsOn("group:analytics"),
            SwiftRemedy.needs("database", type: Database.self),
            SwiftRemedy.key("count", type: Int.self),
        ]
        for form in forms { #expect(article.contains(form), "\(form) is not in the article") }
        // And the messages print exactly those forms.
        let group = AppServices.LookupError.undeclared("group:analytics", reader: "service 'tracker'", declared: [])
        #expect(group.message.contains(forms[0]))
        let needs = AppServices.LookupError.undeclared(
            "database", reader: "entry point 'sync'", declared: ["session"], type: Database.self)
        #expect(needs.message.contains(forms[1]))
        #expect(
            AppServices.LookupError.typeMismatch("count", expected: String.self, actual: Int.self).message.contains(
                forms[2])
        )
    }

    @Test("literals escape what Swift needs escaped; identifiers are made of a name's letters and digits")
    func literalsAndIdentifiers() {
        #expect(SwiftRemedy.literal(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(SwiftRemedy.literal("line\nbreak") == #""line\nbreak""#)
        #expect(SwiftRemedy.identifier("push-detail") == "pushDetail")
        #expect(SwiftRemedy.identifier("2fa") == "_2fa")
        #expect(SwiftRemedy.identifier("!!") == "service")
    }
}
