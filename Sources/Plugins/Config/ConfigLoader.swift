public import Container
public import Foundation

/// Loads container config files (format version 1, documented in <doc:ConfigFormat>, `Configs/README.md`).
///
/// ```swift
/// do {
///     let config = try ConfigLoader.load(path: "Configs/app.json")
///     let container = ServiceContainer(graph: config.graph, policy: config.policy)
/// } catch {
///     print(error)   // every problem, one `file:line:column: keyPath: message` line each
/// }
/// ```
///
/// Loading checks everything before anything runs: JSON syntax (with line and column),
/// types and unknown keys (with the key path and a "did you mean"), providers and entry
/// points against the registry, each provider's options, and the graph itself (missing
/// dependencies, cycles, duplicate names, entry points reading undeclared services or
/// services of another type). Relative paths in options resolve against the config file's folder;
/// a path option starting with `$name/` starts at the folder the app supplies as `pathRoots[name]`:
///
/// ```swift
/// // "options": { "path": "$data/app.sqlite" }: the database goes to Application Support,
/// // not next to the config file inside the read-only app bundle.
/// let config = try ConfigLoader.load(path: configPath, pathRoots: ["data": applicationSupport.path])
/// ```
///
/// Every number and size in the format is bounded (``ConfigLimits``; `Configs/README.md`,
/// "Limits"), the text must be well-formed UTF-8, and names may not hold control characters:
/// a file past a bound is rejected with the place, the limit and the fix, in time and memory
/// linear in its size, whether it is valid or not.
///
/// Overlays (profiles) change a config without editing it: a test database, an offline set-up.
/// They apply in order on top of the base config, before anything is validated, and their
/// problems are reported in their own files (`Configs/README.md`, "Overlays"):
///
/// ```swift
/// let config = try ConfigLoader.load(path: "Configs/app.json", overlays: ["Configs/overlays/test.json"])
/// ```
public enum ConfigLoader {
    /// Reads and loads the config file at `path`, with `overlays` applied in order.
    ///
    /// A path that is not a readable regular file (missing, a directory, a device or FIFO,
    /// unreadable) or a file larger than ``ConfigLimits/maxFileBytes`` is rejected before it is
    /// read, with an error that says which.
    ///
    /// - Parameters:
    ///   - path: the config file; relative paths start at the current directory.
    ///   - overlays: overlay files applied on top of the config, in order (the last wins); at
    ///     most ``ConfigLimits/maxOverlays``.
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found, in the config and in the overlays.
    public static func load(
        path: String, overlays: [String] = [], registry: ProviderRegistry = .standard,
        pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        let base = try ConfigFile.contents(of: path)
        try checkOverlayCount(overlays.count, file: path)
        var files: [(file: String, bytes: [UInt8])] = []
        var unreadable: [ConfigError.Issue] = []
        for overlay in overlays {
            do {
                files.append((overlay, try ConfigFile.contents(of: overlay, kind: "overlay")))
            } catch {
                unreadable += error.issues
            }
        }
        guard unreadable.isEmpty else { throw ConfigError(file: path, issues: unreadable) }
        return try load(base: (path, base), overlays: files, registry: registry, pathRoots: pathRoots)
    }

    /// Loads a config from its bytes (UTF-8 JSON), at most ``ConfigLimits/maxFileBytes`` of them,
    /// with `overlays` applied in order.
    ///
    /// - Parameters:
    ///   - data: the file's contents.
    ///   - file: the file's path, used in messages and as the base of relative paths in options.
    ///   - overlays: overlays applied on top of the config, in order (the last wins).
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found.
    public static func load(
        data: Data, file: String, overlays: [ConfigOverlay] = [], registry: ProviderRegistry = .standard,
        pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        try checkOverlayCount(overlays.count, file: file)
        var oversized = (tooLarge(data.count, file: file, kind: "config").map { [$0] } ?? [])
        for overlay in overlays {
            if let issue = tooLarge(overlay.data.count, file: overlay.file, kind: "overlay") { oversized.append(issue) }
        }
        guard oversized.isEmpty else { throw ConfigError(file: file, issues: oversized) }
        return try load(
            base: (file, [UInt8](data)), overlays: overlays.map { ($0.file, [UInt8]($0.data)) }, registry: registry,
            pathRoots: pathRoots)
    }

    /// Loads a config from its text, with `overlays` applied in order.
    ///
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - file: the file's path, used in messages and as the base of relative paths in options.
    ///   - overlays: overlays applied on top of the config, in order (the last wins).
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found.
    public static func load(
        text: String, file: String, overlays: [ConfigOverlay] = [], registry: ProviderRegistry = .standard,
        pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        try load(data: Data(text.utf8), file: file, overlays: overlays, registry: registry, pathRoots: pathRoots)
    }

    private static func load(
        base: (file: String, bytes: [UInt8]), overlays: [(file: String, bytes: [UInt8])], registry: ProviderRegistry,
        pathRoots: [String: String]
    ) throws(ConfigError) -> ContainerConfig {
        var documents: [ConfigDocument] = []
        var syntax: [ConfigError.Issue] = []
        // Every file is parsed before one is read, so that a syntax error in each is reported at once.
        for (index, source) in ([base] + overlays).enumerated() {
            do {
                documents.append(try ConfigDocument.parse(source.bytes, file: source.file, isOverlay: index > 0))
            } catch {
                syntax += error.issues
            }
        }
        guard syntax.isEmpty else { throw ConfigError(file: base.file, issues: syntax) }
        var decoder = ConfigDecoder(documents: documents, registry: registry)
        decoder.pathRoots = pathRoots
        return try decoder.load()
    }

    private static func checkOverlayCount(_ count: Int, file: String) throws(ConfigError) {
        guard count > ConfigLimits.maxOverlays else { return }
        throw ConfigError(
            file: file,
            issues: [
                ConfigError.Issue(
                    code: .limitExceeded,
                    message: "\(count) overlays are over the limit of \(ConfigLimits.maxOverlays) "
                        + "(ConfigLimits.maxOverlays); merge some of them",
                    location: ConfigLocation(file: file, line: 1, column: 1))
            ])
    }

    private static func tooLarge(_ count: Int, file: String, kind: String) -> ConfigError.Issue? {
        guard count > ConfigLimits.maxFileBytes else { return nil }
        return ConfigError.Issue(
            code: .limitExceeded,
            message: "the \(kind) is \(count) bytes, over the limit of \(ConfigLimits.maxFileBytes) bytes (16 MiB, "
                + "ConfigLimits.maxFileBytes); split it into smaller configs",
            location: ConfigLocation(file: file, line: 1, column: 1))
    }
}

/// An overlay given as bytes rather than a path (``ConfigLoader/load(data:file:overlays:registry:pathRoots:)``):
/// a test's overlay, or one the app ships in memory.
public struct ConfigOverlay: Sendable {
    /// The overlay's path: messages name it, and relative paths in its options start at its folder.
    public let file: String
    /// Its UTF-8 JSON text.
    public let data: Data

    /// An overlay from its bytes.
    public init(file: String, data: Data) {
        self.file = file
        self.data = data
    }

    /// An overlay from its text.
    public init(file: String, text: String) {
        self.init(file: file, data: Data(text.utf8))
    }
}
