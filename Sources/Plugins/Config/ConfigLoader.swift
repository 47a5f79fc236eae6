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
public enum ConfigLoader {
    /// Reads and loads the config file at `path`.
    ///
    /// - Parameters:
    ///   - path: the config file; relative paths start at the current directory.
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...` (``/Container/ServiceOptions/pathRoots``).
    /// - Throws: ``ConfigError`` with every problem found.
    public static func load(
        path: String, registry: ProviderRegistry = .standard, pathRoots: [String: String] = [:]
    ) throws(ConfigError) -> ContainerConfig {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason =
                FileManager.default.fileExists(atPath: path)
                ? "it exists but cannot be read; check its permissions"
                : "there is no such file (relative paths start at \(FileManager.default.currentDirectoryPath))"
            throw ConfigError(
                file: path,
                issues: [
                    ConfigError.Issue(
                        code: .unreadableFile, message: "cannot read the config file: \(reason)",
                        location: ConfigLocation(file: path, line: 1, column: 1))
                ])
        }
        return try load(data: data, file: path, registry: registry, pathRoots: pathRoots)
    }

    /// Loads a config from its bytes (UTF-8 JSON).
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
        let root: JSONNode
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw ConfigError(
                file: file,
                issues: [
                    ConfigError.Issue(
                        code: .syntax, message: "invalid JSON: \(error.message)",
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
