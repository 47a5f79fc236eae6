import Container
import Foundation
import TestSupport
import Testing

@testable import Plugins

/// An error in a big config costs about what loading it without the error costs: positions are
/// found by walking the key path, not from a map of every value built on the first error.
struct ConfigErrorPathTests {
    /// `count` services in a chain, each with an option holding `values` small numbers;
    /// `broken`: which services depend on an undeclared service instead.
    static func bigConfig(services count: Int, values: Int, broken: (Int) -> Bool) -> String {
        let numbers = Array(repeating: "0", count: values).joined(separator: ",")
        let services = (0..<count).map { index in
            let dependency = broken(index) ? "nosuch\(index)" : "s\(index - 1)"
            let dependsOn = index == 0 ? "" : ", \"dependsOn\": [\"\(dependency)\"]"
            return "{\"name\": \"s\(index)\", \"provider\": \"simulated\"\(dependsOn), "
                + "\"options\": {\"description\": [\(numbers)]}}"
        }
        return "{\"version\": 1, \"services\": [\n" + services.joined(separator: ",\n") + "\n]}"
    }

    /// Loads `text`; the arrays and objects made as JSON values meanwhile, and the error.
    private func load(_ text: String) -> (made: Int, error: ConfigError?) {
        let made = PositionedValue.MadeCount()
        let error = PositionedValue.$containersMade.withValue(made) { () -> ConfigError? in
            do {
                _ = try ConfigLoader.load(text: text, file: "big.json")
                return nil
            } catch {
                return error as? ConfigError
            }
        }
        return (made.value, error)
    }

    @Test("One graph error in a config of 50,000 values costs what the valid config costs, counted")
    func errorPathCostsAboutTheHappyPath() throws {
        let valid = load(Self.bigConfig(services: 100, values: 500) { _ in false })
        let broken = load(Self.bigConfig(services: 100, values: 500) { $0 == 50 })
        #expect(valid.error == nil)
        #expect(
            broken.error?.description
                == "big.json:52:56: services[50].dependsOn[0]: service 's50' depends on 'nosuch50', "
                + "which is not declared; declare it or remove it from dependsOn")
        // Positions are found by walking the key path: the error makes no JSON value the valid
        // load does not (a walk that read each step's value made the whole file at each step).
        #expect(broken.made <= valid.made + 2, "error path made \(broken.made), the valid load \(valid.made)")
    }

    @Test("A graph error in every service costs what the valid config costs, counted (not quadratic)")
    func manyErrorsCostAboutTheHappyPath() throws {
        let valid = load(Self.bigConfig(services: 400, values: 50) { _ in false })
        let broken = load(Self.bigConfig(services: 400, values: 50) { $0 > 0 })
        #expect(broken.error?.issues.count == 399)
        #expect(broken.made <= valid.made + 2 * 399, "error path made \(broken.made), the valid load \(valid.made)")
    }

    @Test("Positions: the value at a key path, else its deepest enclosing value; the first of duplicates")
    func positionsByWalkingThePath() throws {
        let text = """
            {"a": {"b": [10, {"c.d": 1, "c": {"d": 2}}]},
             "a": {"x": 3}, "e[0]": 4}
            """
        let root = try JSONParser.parse(Array(text.utf8))
        func at(_ path: String) -> String {
            let position = root.position(of: path)
            return "\(position.line):\(position.column)"
        }
        #expect(at("a.b[0]") == "1:14")
        #expect(at("a.b[1].c.d") == "1:26")  // the key "c.d" comes first in the file
        #expect(at("a.b[1].c") == "1:34")
        #expect(at("a.b[7]") == "1:13")  // no such element: the array
        #expect(at("a.x") == "2:13")  // the first "a" has no x, the second one has
        #expect(at("a.y") == "1:7")  // neither has: the first "a"
        #expect(at("e[0]") == "2:25")  // a key that looks like an index
        #expect(at("zzz") == "1:1")
        #expect(at("a.b[99999999999999999999999]") == "1:13")
        #expect(root.node(at: "a.b[1].c.d") != nil)
        #expect(root.node(at: "a.b[2]") == nil)
    }

    /// A service with `filler` unknown keys and a `secretOptions` list of `names` names that are
    /// not options, the list before or after the other keys.
    static func secretListConfig(filler: Int, names: Int, listFirst: Bool) -> String {
        let fillerKeys = (0..<filler).map { "\"f\($0)\":0" }.joined(separator: ",")
        let list = "\"secretOptions\":[" + (0..<names).map { "\"s\($0)\"" }.joined(separator: ",") + "]"
        let head = "\"name\":\"a\",\"provider\":\"simulated\""
        let body = listFirst ? [head, list, fillerKeys] : [head, fillerKeys, list]
        return "{\"version\":1,\"services\":[{" + body.joined(separator: ",") + "}]}"
    }

    /// Loads `text`: the object members key-path walks looked at, and the issues.
    private func walked(_ text: String) -> (members: Int, issues: Int) {
        let walked = PositionedValue.MadeCount()
        let issues = PositionedValue.$membersWalked.withValue(walked) { () -> Int in
            do {
                _ = try ConfigLoader.load(text: text, file: "t.json")
                return 0
            } catch {
                return (error as? ConfigError)?.issues.count ?? -1
            }
        }
        return (walked.value, issues)
    }

    @Test("Placing N secretOptions problems costs the same after N other keys as before them, counted")
    func secretOptionsProblemsArePlacedWithoutAWalkEach() {
        let count = 2_000
        let early = walked(Self.secretListConfig(filler: count, names: count, listFirst: true))
        let late = walked(Self.secretListConfig(filler: count, names: count, listFirst: false))
        #expect(early.issues == 2 * count && late.issues == early.issues)
        // A walk per problem from the object's first member looked at 2,000 x 2,000 members.
        #expect(late.members <= early.members + 10 * count, "\(late.members) members walked, \(early.members) before")
    }
}
