import Container
import Foundation
import Plugins
import Testing

/// Configs/README.md ("Errors"): text a message quotes from the file has its control characters
/// escaped and long names shortened; also the key a JSON syntax error names (`expected ':' after
/// the key "..."`), in config files and in the settings files the `configuration` provider reads.
struct SyntaxMessageQuoteTests {
    private func syntaxMessage(_ text: String) throws -> String {
        do {
            _ = try ConfigLoader.load(text: text, file: "t.json")
        } catch {
            #expect(error.codes == [.syntax])
            return try #require(error.issues.first).message
        }
        Issue.record("expected a syntax error")
        return ""
    }

    @Test("a syntax error after a key with a control character shows it as an escape, not raw")
    func controlCharacterInQuotedKeyIsEscaped() throws {
        // The key is `ab<ESC>[2Jcd` (an ANSI "clear screen"), written with a JSON escape; the colon is missing.
        let message = try syntaxMessage(#"{"version": 1, "ab\u001b[2Jcd" 1, "services": []}"#)
        #expect(!message.unicodeScalars.contains("\u{1B}"), "raw ESC in: \(message.debugDescription)")
        #expect(message.contains(#"\u{1B}"#), "expected the escape \\u{1B} in: \(message.debugDescription)")
        // The same after a value: `expected ',' or '}' after the value of "..."`.
        let afterValue = try syntaxMessage(#"{"version": 1, "x\u0007y": 1 "services": []}"#)
        #expect(!afterValue.unicodeScalars.contains("\u{07}"), "raw BEL in: \(afterValue.debugDescription)")
    }

    @Test("a syntax error after a very long key quotes it shortened")
    func longQuotedKeyIsShortened() throws {
        let key = String(repeating: "k", count: 5_000)
        let message = try syntaxMessage(#"{"version": 1, ""# + key + #"" 1, "services": []}"#)
        // Everywhere else the loader quotes at most 64 characters, then "…".
        #expect(
            message.count < 500, "the message quotes the whole \(key.count)-character key (\(message.count) characters)"
        )
        #expect(message.contains("…"))
    }
}
