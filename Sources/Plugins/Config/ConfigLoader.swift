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
public enum ConfigLoader {
    /// Reads and loads the config file at `path`.
    ///
    /// A path that is not a readable regular file (missing, a directory, a device or FIFO,
    /// unreadable) or a file larger than ``ConfigLimits/maxFileBytes`` is rejected before it is
    /// read, with an error that says which.
    ///
    /// - Parameters:
    ///   - path: the config file; relative paths start at the current directory.
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found.
    public static func load(
        path: String, registry: ProviderRegistry = .standard, pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        try load(bytes: ConfigFile.contents(of: path), file: path, registry: registry, pathRoots: pathRoots)
    }

    /// Loads a config from its bytes (UTF-8 JSON), at most ``ConfigLimits/maxFileBytes`` of them.
    ///
    /// - Parameters:
    ///   - data: the file's contents.
    ///   - file: the file's path, used in messages and as the base of relative paths in options.
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found.
    public static func load(
        data: Data, file: String, registry: ProviderRegistry = .standard, pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        guard data.count <= ConfigLimits.maxFileBytes else {
            throw ConfigError(
                file: file,
                issues: [
                    ConfigError.Issue(
                        code: .limitExceeded,
                        message: "the config is \(data.count) bytes, over the limit of \(ConfigLimits.maxFileBytes) "
                            + "bytes (16 MiB, ConfigLimits.maxFileBytes); split it into smaller configs",
                        location: ConfigLocation(file: file, line: 1, column: 1))
                ])
        }
        return try load(bytes: [UInt8](data), file: file, registry: registry, pathRoots: pathRoots)
    }

    private static func load(
        bytes: [UInt8], file: String, registry: ProviderRegistry, pathRoots: [String: String]
    ) throws(ConfigError) -> ContainerConfig {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let isLimit = error.kind == .limit
            throw ConfigError(
                file: file,
                issues: [
                    ConfigError.Issue(
                        code: isLimit ? .limitExceeded : .syntax,
                        message: isLimit ? error.message : "invalid JSON: \(error.message)",
                        location: ConfigLocation(file: file, line: error.position.line, column: error.position.column))
                ])
        }
        let baseDirectory = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
        var decoder = ConfigDecoder(file: file, baseDirectory: baseDirectory, registry: registry, root: root)
        decoder.pathRoots = pathRoots
        return try decoder.load()
    }

    /// Loads a config from its text.
    ///
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - file: the file's path, used in messages and as the base of relative paths in options.
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found.
    public static func load(
        text: String, file: String, registry: ProviderRegistry = .standard, pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        try load(data: Data(text.utf8), file: file, registry: registry, pathRoots: pathRoots)
    }
}
