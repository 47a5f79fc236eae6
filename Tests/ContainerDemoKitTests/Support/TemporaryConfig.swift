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

/// A small deterministic random number generator (SplitMix64), so generated graphs are the same every run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
