import Container
import ContainerDemoKit
import Foundation
import Plugins

/// Scenario 8: cold start of the demo's default graph (`Configs/app.json`, real SQLite),
/// from a fresh copy of the `Configs` folder each time, in-process.
func coldStartScenario(_ settings: BenchSettings) async throws -> [Row] {
    let source = try findConfigs()
    let samples = settings.smoke ? 2 : max(5, settings.samples / 2)
    var loads: [Double] = []
    var builds: [Double] = []
    for _ in 0..<(samples + 1) {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("container-bench-cold-\(getpid())-\(nanoseconds())").path
        try FileManager.default.copyItem(atPath: source, toPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try? FileManager.default.removeItem(atPath: directory + "/app.sqlite")  // a cold database

        let loadStart = nanoseconds()
        // `$data` (the database's folder) is the fresh copy, as the demo's data folder would be.
        let config = try ConfigLoader.load(
            path: directory + "/app.json", registry: .demo, pathRoots: ["data": directory])
        let container = ServiceContainer(graph: config.graph, policy: config.policy)
        let buildStart = nanoseconds()
        let services = try await container.start()
        let buildEnd = nanoseconds()
        // The app snapshot holds the app's services; the scoped ones are built per scope instance.
        let appServices = config.graph.serviceNames.filter { config.graph.lifetime(of: $0) == .app }
        precondition(services.serviceNames.count == appServices.count)
        try await container.shutdown()
        loads.append(Double(buildStart - loadStart) / 1e6)
        builds.append(Double(buildEnd - buildStart) / 1e6)
    }
    // The first round also warms the file system and the dynamic loader: drop it.
    loads.removeFirst()
    builds.removeFirst()
    return [
        Row("coldstart", "Configs/app.json: ConfigLoader.load + ServiceContainer", unit: "ms", loads),
        Row(
            "coldstart", "Configs/app.json: start() to published snapshot (new SQLite file, migrations)", unit: "ms",
            builds),
    ]
}

/// The repository's `Configs` folder: from the current directory or above it.
func findConfigs() throws -> String {
    var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    for _ in 0..<6 {
        let candidate = directory.appendingPathComponent("Configs/app.json").path
        if FileManager.default.fileExists(atPath: candidate) { return directory.appendingPathComponent("Configs").path }
        directory.deleteLastPathComponent()
    }
    throw BenchError(message: "Configs/app.json not found; run container-bench from the repository root")
}

/// A benchmark could not run.
struct BenchError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
