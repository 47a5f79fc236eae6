import Container
import Foundation
import Plugins

/// Writes a config file of `count` `simulated` services (random DAG, fan-in 3) into `directory`.
func writeSimulatedConfig(count: Int, directory: String) throws -> String {
    let dag = RandomDAG(nodes: count, fanIn: 3, seed: 23)
    var text = "{\n  \"version\": 1,\n  \"services\": [\n"
    for node in 0..<count {
        let dependsOn = dag.dependencies[node].map { "\"\(RandomDAG.name($0))\"" }.joined(separator: ", ")
        text +=
            "    { \"name\": \"\(RandomDAG.name(node))\", \"provider\": \"simulated\", \"dependsOn\": [\(dependsOn)],"
        text += " \"options\": { \"durationMs\": 0 } }\(node == count - 1 ? "" : ",")\n"
    }
    text += "  ]\n}\n"
    let path = directory + "/simulated-\(count).json"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Scenario 6: loading and validating a config file of many services.
func configScenario(_ settings: BenchSettings) async throws -> [Row] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("container-bench-\(getpid())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let sizes = settings.smoke ? [100, 1_000] : [1_000, 10_000, 100_000]
    var rows: [Row] = []
    var perServiceAt: [Int: Double] = [:]
    for size in sizes {
        let path = try writeSimulatedConfig(count: size, directory: directory)
        let local = BenchSettings(
            samples: size >= 100_000 ? max(3, settings.samples / 3) : settings.samples, warmup: 1,
            targetSampleNanos: settings.targetSampleNanos, smoke: settings.smoke)
        var loaded: ContainerConfig?
        // The clock stops before the previous sample's config is released: its teardown is not
        // part of a load.
        let loadSamples = try repeatSamples(local) { () throws -> Double in
            let start = nanoseconds()
            let config = try ConfigLoader.load(path: path)
            let elapsed = nanoseconds() - start
            loaded = config
            return Double(elapsed) / 1e6
        }
        guard let specs = loaded?.specs, specs.count == size else {
            throw BenchError(message: "the generated config did not load \(size) services")
        }
        let validateSamples = try repeatSamples(local) { () throws -> Double in
            let start = nanoseconds()
            let graph = try ServiceGraph(specs, registry: .standard)
            let elapsed = nanoseconds() - start
            precondition(graph.count == size)
            return Double(elapsed) / 1e6
        }
        let median = Summary(loadSamples).median
        perServiceAt[size] = median / Double(size)
        rows.append(
            Row(
                "config", "\(size) services: ConfigLoader.load(path:) (read, parse, decode, validate)", unit: "ms",
                loadSamples, goal: size == 10_000 ? "≤ 100 ms" : nil,
                met: settings.smoke || size != 10_000 ? nil : median <= 100))
        rows.append(
            Row(
                "config", "\(size) services: ServiceGraph(specs, registry:) validation alone", unit: "ms",
                validateSamples))
    }
    if let small = perServiceAt[sizes.first!], let large = perServiceAt[sizes.last!] {
        rows.append(
            Row(
                "config", "linearity: per-service load time at \(sizes.last!) / at \(sizes.first!)", unit: "×",
                [large / small], goal: "≈ 1 (linear)", met: settings.smoke ? nil : large / small <= 1.5))
    }
    return rows
}
