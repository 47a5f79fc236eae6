import Container
import Foundation
import Plugins
import Testing

/// `"optional"` in a config and the `"<name>?"` edge: read, checked where they were written.
struct OptionalServiceConfigTests {
    @Test("\"optional\": true is read; an optional edge is the name with '?'")
    func optionalIsRead() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "telemetry", "provider": "simulated", "optional": true },
                { "name": "feed", "provider": "simulated", "dependsOn": ["telemetry?"], "optional": false }
              ]
            }
            """
        let config = try ConfigLoader.load(text: text, file: "app.json")
        #expect(config.specs.map(\.isOptional) == [true, false])
        #expect(config.graph.isOptional("telemetry") == true)
        #expect(config.graph.isOptional("feed") == false)
        #expect(config.graph.dependencies(of: "feed") == ["telemetry"])
    }

    @Test(
        "a plain edge to an optional service, an optional edge to one that is not, a non-boolean: placed, with the fix")
    func problemsArePlaced() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "telemetry", "provider": "simulated", "optional": true },
                { "name": "database", "provider": "simulated", "optional": "yes" },
                { "name": "feed", "provider": "simulated", "dependsOn": ["telemetry", "database?"] }
              ]
            }
            """
        let error = try #require(loadError(text))
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(error)")
        #expect(
            lines.first?.hasPrefix("test.json:5:64: services[1].optional: must be true or false") == true, "\(error)")
        #expect(
            lines.contains {
                $0.hasPrefix("test.json:6:62: services[2].dependsOn[0]:") && $0.contains("\"telemetry?\"")
            },
            "\(error)")
        #expect(
            lines.contains {
                $0.hasPrefix("test.json:6:75: services[2].dependsOn[1]:") && $0.contains("'database' is not optional")
            }, "\(error)")
    }
}
