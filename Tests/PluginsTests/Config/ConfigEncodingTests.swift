import Container
import Foundation
import Plugins
import TestSupport
import Testing

/// Bytes that are not UTF-8, and control characters in names, are errors with their position;
/// nothing of the input reaches a message raw.
struct ConfigEncodingTests {
    private func rejected(bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
        do {
            _ = try ConfigLoader.load(data: Data(bytes), file: "test.json")
            Issue.record("expected the config to be rejected", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    /// `{ "version": 1, "services": [ { "name": "<bytes>", "provider": "simulated" } ] }`.
    private func config(name: [UInt8]) -> [UInt8] {
        Array("{ \"version\": 1, \"services\": [\n  { \"name\": \"ab".utf8) + name
            + Array("\", \"provider\": \"simulated\" } ] }".utf8)
    }

    @Test func invalidUTF8InAStringIsAnErrorWithItsPosition() throws {
        // Each was silently decoded as U+FFFD. Line 2, column 16 is the first bad byte.
        let cases: [(bytes: [UInt8], byte: String)] = [
            ([0xFF], "0xFF"),  // never valid
            ([0x80], "0x80"),  // a continuation byte alone
            ([0xC0, 0x80], "0xC0"),  // an overlong NUL
            ([0xE0, 0x80, 0x80], "0xE0"),  // overlong
            ([0xED, 0xA0, 0x80], "0xED"),  // a UTF-16 surrogate
            ([0xF4, 0x90, 0x80, 0x80], "0xF4"),  // past U+10FFFF
            ([0xE2, 0x82], "0xE2"),  // cut short
        ]
        for (bytes, byte) in cases {
            let error = try #require(rejected(bytes: config(name: bytes)))
            #expect(error.codes == [.syntax])
            #expect(
                error.description
                    == "test.json:2:16: invalid JSON: invalid UTF-8 in a string (byte \(byte)); save the file as UTF-8",
                "\(bytes)")
        }
        // Well-formed multi-byte characters still count one column each.
        let valid = try ConfigLoader.load(data: Data(config(name: Array("é€😀".utf8))), file: "test.json")
        #expect(valid.graph.serviceNames == ["abé€😀"])
    }

    @Test func invalidUTF8OutsideAStringIsNamed() throws {
        let error = try #require(rejected(bytes: Array("{ \"version\": 1, ".utf8) + [0xFF] + Array(" }".utf8)))
        #expect(
            error.description
                == "test.json:1:17: invalid JSON: expected a key in double quotes, found invalid UTF-8 (byte 0xFF; "
                + "save the file as UTF-8)")
    }

    @Test func controlCharactersInNamesAreRejectedWithTheirPosition() throws {
        let error = try #require(
            loadError(
                """
                { "version": 1, "services": [
                  { "name": "a\\u0000b", "provider": "simulated" },
                  { "name": "c", "provider": "simu\\u001blated" },
                  { "name": "d", "provider": "simulated", "dependsOn": ["e\\u007f"] },
                  { "name": "x\\u0085", "provider": "simulated" }
                ], "entryPoints": ["pu\\u0007sh"] }
                """))
        #expect(error.codes == [.invalidName, .invalidName, .invalidName, .invalidName, .invalidName])
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "test.json:2:13: services[0].name: service name 'a\\u{0}b' contains the control character U+0000 "
                    + "(character 2); remove it",
                "test.json:3:30: services[1].provider: provider id 'simu\\u{1B}lated' contains the control character "
                    + "U+001B (character 5); remove it",
                "test.json:4:57: services[2].dependsOn[0]: service 'd' depends on 'e\\u{7F}', which contains the "
                    + "control character U+007F (character 2); remove it",
                "test.json:5:13: services[3].name: service name 'x\\u{85}' contains the control character U+0085 "
                    + "(character 2); remove it",
                "test.json:6:20: entryPoints[0]: entry point id 'pu\\u{7}sh' contains the control character U+0007 "
                    + "(character 3); remove it",
            ])
    }

    @Test func noControlCharacterOfTheInputReachesAMessage() throws {
        // Keys, option names and words are quoted in messages: each is shown escaped.
        let error = try #require(
            loadError(
                """
                { "version": 1, "\\u001b[2J": 1, "services": [
                  { "name": "a", "provider": "simulated", "failure": "x\\u0000",
                    "options": { "durationMs": 1, "o\\u0008": 2 }, "secretOptions": ["s\\u009b"] }
                ] }
                """))
        #expect(error.issues.count == 4)
        let text = error.description
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
        #expect(text.contains("unknown key '\\u{1B}[2J'"))
        #expect(text.contains("unknown failure kind 'x\\u{0}'"))
        #expect(text.contains("secretOptions names 's\\u{9B}'"))
        #expect(text.contains("services[0].options.o\\u{8}: service 'a' (provider 'simulated'): option 'o\\u{8}'"))
    }
}
