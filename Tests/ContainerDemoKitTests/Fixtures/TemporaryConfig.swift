import ContainerTesting
import Foundation

/// A folder under the system's temporary directory holding generated config files; removed by `remove()`.
struct TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "container-demo-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Config texts for the `simulated` provider.
enum SimulatedConfigs {
    /// A config of simulated services: `(name, dependsOn, outcomes)`; no entry points unless given.
    static func config(_ services: [(String, [String], [String])], entryPoints: [String]? = nil) -> String {
        let specs = services.map { name, dependsOn, outcomes in
            let deps = dependsOn.map { "\"\($0)\"" }.joined(separator: ", ")
            let outs = outcomes.map { "\"\($0)\"" }.joined(separator: ", ")
            return "    { \"name\": \"\(name)\", \"provider\": \"simulated\", \"dependsOn\": [\(deps)], "
                + "\"options\": { \"durationMs\": 1, \"outcomes\": [\(outs)] } }"
        }
        let entries =
            entryPoints.map { list in
                ",\n  \"entryPoints\": [" + list.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            } ?? ""
        return "{\n  \"version\": 1,\n  \"services\": [\n" + specs.joined(separator: ",\n") + "\n  ]" + entries
            + "\n}\n"
    }

    /// A random DAG of `count` simulated services from a fixed seed: each node depends on up to
    /// three earlier ones, so the graph is acyclic by construction.
    static func randomDAG(count: Int, seed: UInt64) -> (text: String, edges: [(String, String)]) {
        var generator = SplitMix64(seed: seed)
        var services: [(String, [String], [String])] = []
        var edges: [(String, String)] = []
        for index in 0..<count {
            let name = "node-\(index)"
            var dependencies = Set<Int>()
            if index > 0 {
                let wanted = Int(generator.next() % 4)
                for _ in 0..<wanted { dependencies.insert(Int(generator.next() % UInt64(index))) }
            }
            let names = dependencies.sorted().map { "node-\($0)" }
            edges += names.map { ($0, name) }
            services.append((name, names, ["ok"]))
        }
        return (config(services), edges)
    }
}
