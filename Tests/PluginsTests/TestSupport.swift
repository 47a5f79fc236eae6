import Container
import Dispatch
import Foundation
import Plugins
import Synchronization
import TestSupport
import Testing

/// Paths of the package, found from this file's location.
enum PackagePaths {
    /// The package root (two levels above `Tests/PluginsTests`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Configs/`.
    static let configs = root.appendingPathComponent("Configs")
}

/// A one-shot gate: `wait()` suspends until `open()`; cancellation ends the wait.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [Int: CheckedContinuation<Void, any Error>], next: Int)>(
        (false, [:], 0))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.open } }

    func wait() async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if state.open || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// A trace sink that keeps every event and opens gates when a predicate first matches.
final class TraceWatcher: TraceSink {
    private let state = Locked<
        (events: [TraceEvent], watches: [(predicate: @Sendable ([TraceEvent]) -> Bool, gate: Gate)])
    >(
        ([], []))

    func record(_ event: TraceEvent) {
        let ready: [Gate] = state.withLock { state in
            state.events.append(event)
            let events = state.events
            let matched = state.watches.filter { $0.predicate(events) }
            state.watches.removeAll { watch in matched.contains { $0.gate === watch.gate } }
            return matched.map(\.gate)
        }
        for gate in ready { gate.open() }
    }

    var events: [TraceEvent] { state.withLock { $0.events } }

    /// Waits until the recorded events satisfy `predicate` (checked after each event), or fails after a timeout.
    func wait(
        for what: String, timeout: Double = 10, until predicate: @escaping @Sendable ([TraceEvent]) -> Bool
    ) async throws {
        let gate = Gate()
        let alreadyTrue = state.withLock { state in
            if predicate(state.events) { return true }
            state.watches.append((predicate, gate))
            return false
        }
        if alreadyTrue { return }
        try await withTimeout(timeout, what) { try await gate.wait() }
    }
}

/// A thread-safe list of strings, for logging calls from providers and teardowns.
final class CallLog: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    func count(of entry: String) -> Int { all.filter { $0 == entry }.count }
}

/// Wraps a provider to log every `make` and teardown as `make:<node>` / `tearDown:<value label>`.
///
/// It always has a teardown (calling the base's when it has one), so teardown order is
/// visible for every node.
struct CountingProvider<Base: ServiceProvider>: ServiceProvider {
    let base: Base
    let log: CallLog
    var gate: Gate?
    let label: @Sendable (Base.Value) -> String

    init(_ base: Base, log: CallLog, gate: Gate? = nil, label: @escaping @Sendable (Base.Value) -> String) {
        self.base = base
        self.log = log
        self.gate = gate
        self.label = label
    }

    var id: String { base.id }

    func make(_ context: ProviderContext) async throws -> Base.Value {
        log.append("make:\(context.serviceName)")
        if let gate { try await gate.wait() }
        return try await base.make(context)
    }

    var tearDown: (@Sendable (Base.Value) async throws -> Void)? {
        let log = log
        let label = label
        let baseTearDown = base.tearDown
        return { value in
            log.append("tearDown:\(label(value))")
            try await baseTearDown?(value)
        }
    }

    func classify(_ error: any Error) -> FailureKind? { base.classify(error) }
    func validate(options: ServiceOptions) throws { try base.validate(options: options) }
}

/// The standard registry with counting wrappers around every provider.
func countingRegistry(log: CallLog, configurationGate: Gate? = nil) throws -> ProviderRegistry {
    var registry = ProviderRegistry()
    try registry.register(
        CountingProvider(ConfigurationProvider(), log: log, gate: configurationGate) { _ in "configuration" })
    try registry.register(CountingProvider(SQLiteProvider(), log: log) { _ in "database" })
    try registry.register(CountingProvider(SessionProvider(), log: log) { _ in "session" })
    try registry.register(CountingProvider(SimulatedProvider(), log: log) { $0.node })
    for entryPoint in ProviderRegistry.standard.entryPoints.values.sorted(by: { $0.id < $1.id }) {
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
