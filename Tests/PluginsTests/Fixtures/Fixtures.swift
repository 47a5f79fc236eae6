import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import Testing

/// Paths of the package, found from this file's location.
enum PackagePaths {
    /// The package root (three levels above `Tests/PluginsTests/Fixtures`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// `Configs/`.
    static let configs = root.appendingPathComponent("Configs")
}

/// The demo's registry (what `Configs/app.json` names) with counting wrappers around every provider.
func countingRegistry(log: OrderLog, configurationGate: Gate? = nil) throws -> ProviderRegistry {
    var registry = ProviderRegistry()
    try registry.register(
        CountingProvider(ConfigurationProvider(), log: log, gate: configurationGate) { _ in "configuration" })
    try registry.register(
        CountingProvider(SQLiteProvider(defaultMigrations: DemoSchema.migrations), log: log) { _ in "database" })
    try registry.register(CountingProvider(SessionProvider(), log: log) { _ in "session" })
    try registry.register(CountingProvider(SimulatedProvider(), log: log) { $0.node })
    try registry.register(CountingProvider(SceneRouterProvider(), log: log) { _ in "sceneRouter" })
    try registry.register(CountingProvider(PushDetailProvider(), log: log) { _ in "pushDetail" })
    for entryPoint in ProviderRegistry.demo.entryPoints.values.sorted(by: { $0.id < $1.id }) {
        try registry.register(entryPoint: entryPoint)
    }
    return registry
}

/// A temporary copy of `Configs/app.json` and its settings; the fresh folder is also the `$data`
/// path root, so the SQLite file lives there.
struct AppFixture {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("plugins-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("settings"), withIntermediateDirectories: true)
        for file in ["app.json", "settings/app-settings.json"] {
            try FileManager.default.copyItem(
                at: PackagePaths.configs.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
    }

    var appConfig: String { directory.appendingPathComponent("app.json").path }
    var databasePath: String { directory.appendingPathComponent("app.sqlite").path }
    /// The path roots to load ``appConfig`` with: `$data` is the fixture's folder.
    var pathRoots: [String: String] { ["data": directory.path] }

    /// Writes `text` as `name` in the fixture folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Loads `text` expecting a ``ConfigError``; records a test issue when loading succeeds.
func loadError(
    _ text: String, file: String = "test.json", registry: ProviderRegistry = .standard,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ConfigError? {
    do {
        _ = try ConfigLoader.load(text: text, file: file, registry: registry)
        Issue.record("expected the config to be rejected", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Every text in a trace event, associated values included.
func text(of events: [TraceEvent]) -> String {
    events.map { "\($0) \($0.kind)" }.joined(separator: "\n")
}
