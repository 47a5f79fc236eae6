import Container
import Foundation
import Testing

@testable import Plugins

/// The parser makes the runtime's one JSON value type, `ServiceOptions.Value`, and keeps where each part
/// of it was written beside it.
struct PositionedValueTests {
    @Test("the parsed value is a ServiceOptions.Value; every element and member has its own position")
    func valueAndPositions() throws {
        let text = """
            {"name": "db", "n": 3, "x": 2.5,
             "list": [true, null, {"k": "v"}]}
            """
        let root = try JSONParser.parse(Array(text.utf8))
        #expect(
            root.value
                == .object([
                    "name": .string("db"), "n": .int(3), "x": .double(2.5),
                    "list": .array([.bool(true), .null, .object(["k": .string("v")])]),
                ]))
        #expect(root.members.map(\.key) == ["name", "n", "x", "list"])
        let keys = root.members.map { "\($0.keyPosition.line):\($0.keyPosition.column)" }
        #expect(keys == ["1:2", "1:16", "1:24", "2:2"])
        let list = try #require(root.members.last?.value)
        #expect(list.elements.map(\.value) == [.bool(true), .null, .object(["k": .string("v")])])
        #expect(list.elements.map { "\($0.position.line):\($0.position.column)" } == ["2:11", "2:17", "2:23"])
        #expect(list.elements[2].members.first?.value.value == .string("v"))
        // Scalars hold no other value.
        #expect(list.elements[0].elements.isEmpty && list.elements[0].members.isEmpty)
    }

    @Test(
        "lines end with \\n, \\r\\n or a lone \\r: the same positions whichever a file uses",
        arguments: ["\n", "\r\n", "\r"])
    func lineEndings(_ ending: String) throws {
        let text = ["{", "  \"a\": 1,", "  \"b\": [2,", "    3]", "}"].joined(separator: ending)
        let root = try JSONParser.parse(Array(text.utf8))
        #expect(root.members.map { "\($0.keyPosition.line):\($0.keyPosition.column)" } == ["2:3", "3:3"])
        let list = try #require(root.members.last?.value)
        #expect(list.elements.map { "\($0.position.line):\($0.position.column)" } == ["3:9", "4:5"])
    }

    @Test("duplicate keys: each member keeps its own value and position; the value keeps the last")
    func duplicateKeys() throws {
        let root = try JSONParser.parse(Array(#"{"a": 1, "b": 2, "a": "x"}"#.utf8))
        #expect(root.value == .object(["a": .string("x"), "b": .int(2)]))
        #expect(root.members.map(\.key) == ["a", "b", "a"])
        #expect(root.members.map(\.value.value) == [.int(1), .int(2), .string("x")])
        #expect(root.members.map(\.value.position.column) == [7, 15, 23])
    }

    @Test("a config's options are the parsed object; of a duplicated key, the loader reads the first")
    func optionsAreTheParsedObject() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "s", "provider": "simulated", "options": { "durationMs": 1, "outcomes": ["ok"] } }
              ]
            }
            """
        let config = try ConfigLoader.load(text: text, file: "test.json")
        #expect(config.specs.first?.options.values == ["durationMs": .int(1), "outcomes": .array([.string("ok")])])
        // A duplicate `version`: the first one (1) is read, the second reported.
        let duplicate = text.replacingOccurrences(of: #""version": 1,"#, with: #""version": 1, "version": "x","#)
        let error = try #require(loadError(duplicate))
        #expect(error.codes == [.duplicateKey])
    }
}
