import Container
import Foundation
import TestSupport
import Testing

@testable import Plugins

/// An error in a big config costs about what loading it without the error costs: positions are
/// found by walking the key path, not from a map of every value built on the first error.
struct ConfigErrorPathTests {
    /// `count` services in a chain, each with an option holding `values` small numbers;
    /// `broken` makes the middle one depend on an undeclared service.
    static func bigConfig(services count: Int, values: Int, broken: Bool) -> String {
        let numbers = Array(repeating: "0", count: values).joined(separator: ",")
        let services = (0..<count).map { index in
            let dependency = broken && index == count / 2 ? "nosuchservice" : "s\(index - 1)"
            let dependsOn = index == 0 ? "" : ", \"dependsOn\": [\"\(dependency)\"]"
            return "{\"name\": \"s\(index)\", \"provider\": \"simulated\"\(dependsOn), "
                + "\"options\": {\"description\": [\(numbers)]}}"
        }
        return "{\"version\": 1, \"services\": [\n" + services.joined(separator: ",\n") + "\n]}"
    }

    @Test("One graph error in a config of 50,000 values costs about what the valid config costs")
    func errorPathCostsAboutTheHappyPath() async throws {
        let valid = Self.bigConfig(services: 100, values: 500, broken: false)
        let broken = Self.bigConfig(services: 100, values: 500, broken: true)
        let (happy, failing, message) = try await offThePool {
            let clock = ContinuousClock()
            var happy = Duration.seconds(1_000)
            var failing = Duration.seconds(1_000)
            var message = ""
            // The best of five runs each, interleaved, so that a busy machine does not decide.
            for _ in 0..<5 {
                var start = clock.now
                _ = try ConfigLoader.load(text: valid, file: "big.json")
                happy = min(happy, clock.now - start)
                start = clock.now
                do {
                    _ = try ConfigLoader.load(text: broken, file: "big.json")
                } catch let error as ConfigError {
                    message = error.description
                }
                failing = min(failing, clock.now - start)
            }
            return (happy, failing, message)
        }
        #expect(
            message
                == "big.json:52:56: services[50].dependsOn[0]: service 's50' depends on 'nosuchservice', "
                + "which is not declared; declare it or remove it from dependsOn")
        // The first version built a key path for each of the 50,000 values on the first error: its
        // error path took 2.5 times as long as the valid config (a debug build; 16 times optimized).
        #expect(failing < happy * 1.5 + .milliseconds(200), "error path \(failing), valid config \(happy)")
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
}
