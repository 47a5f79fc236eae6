import Container
import ContainerTrace
import Foundation
import Plugins

// Loads this package's config with the standard providers plus our own plugins, runs the config's
// entry points concurrently (they share one build), prints their summaries and the build
// (traced, drawn by ContainerTrace's timeline renderer) and exits 0.
// Usage: swift run --package-path Examples/CustomPlugin [CustomPlugin] [config.json]

let packageDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let configPath =
    CommandLine.arguments.dropFirst().first
    ?? packageDirectory.appendingPathComponent("Configs/custom.json").path

var registry = ProviderRegistry.standard
do {
    try registry.register(GreeterProvider())
    try registry.register(ConsoleSinkProvider())
    try registry.register(MemorySinkProvider())
    try registry.register(TrackerProvider())
    try registry.register(entryPoint: WelcomeEntryPoint())
    // The standard deep-link entry point, for the link this example opens (a config names it by id).
    try registry.register(entryPoint: DeepLinkEntryPoint(url: "demo://profile"))
} catch {
    print("cannot register the plugins: \(error)")
    exit(2)
}

let config: ContainerConfig
do {
    config = try ConfigLoader.load(path: configPath, registry: registry)
} catch {
    print(error)
    exit(2)
}

let recorder = TraceRecorder()
let container = ServiceContainer(graph: config.graph, policy: config.policy, trace: [recorder])
do {
    let summaries = try await withThrowingTaskGroup(of: (Int, String).self) { group in
        for (index, entryPoint) in config.entryPoints.enumerated() {
            group.addTask { (index, String(describing: try await container.run(entryPoint))) }
        }
        var results: [(Int, String)] = []
        for try await result in group { results.append(result) }
        return results.sorted { $0.0 < $1.0 }.map(\.1)
    }
    for summary in summaries { print(summary) }
    print(TimelineRenderer().renderSummary(recorder.events), terminator: "")
    let report = try await container.shutdown()
    print("torn down: \(report.tornDown.map(\.service).joined(separator: ", "))")
} catch {
    print("failed: \(error)")
    _ = try? await container.shutdown()
    exit(1)
}
