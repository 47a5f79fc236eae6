public import Container
internal import Foundation

/// The `configuration` provider: reads the app's settings from a JSON file into an
/// ``AppConfiguration``.
///
/// Options:
/// - `path` (required): the settings file, relative to the config file's folder.
///
/// A missing file, invalid JSON (reported with line and column) or a wrong field type is a
/// permanent ``ConfigurationError``.
/// It reads the file without suspending (a ``/Container/SynchronousServiceProvider``), so
/// `resolveNow` can build it on the caller's thread.
public struct ConfigurationProvider: SynchronousServiceProvider {
    /// `configuration`.
    public let id = "configuration"

    /// Creates the provider.
    public init() {}

    /// Reads the options once, when the graph is validated: a string `path` (with a known path
    /// root, if any), resolved against the config's folder or its path root.
    /// - Throws: ``/Container/OptionError`` when `path` is missing, not a string or names an
    ///   unknown path root.
    public func settings(from options: ServiceOptions) throws(OptionError) -> ConfigurationOptions {
        // Read as written (an empty path is refused), then resolved, as `sqlite` does.
        var settings = try ConfigurationOptions(options)
        settings.path = try options.path("path")
        return settings
    }

    /// Reads and decodes the settings file named by the settings read at validation.
    public func makeNow(_ context: ProviderContext) throws -> AppConfiguration {
        try Self.read(path: try context.settings(for: self).path)
    }

    /// Reads the settings file at `path`.
    /// - Throws: ``ConfigurationError``.
    public static func read(path: String) throws(ConfigurationError) -> AppConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError(
                path: path, line: nil, column: nil,
                message: "cannot read the settings file; check the configuration service's \"path\" option "
                    + "(relative paths start at the config file's folder)")
        }
        let root: PositionedValue
        do {
            root = try JSONParser.parse([UInt8](data))
        } catch {
            throw ConfigurationError(
                path: path, line: error.position.line, column: error.position.column,
                message: "invalid JSON: \(error.message)")
        }
        guard case .object(let raw) = root.value else {
            throw ConfigurationError(
                path: path, line: root.position.line, column: root.position.column,
                message: "the settings file must hold a JSON object, found \(root.typeName)")
        }
        var fields: [String: PositionedValue] = [:]
        for member in root.members { fields[member.key] = member.value }

        func fail(_ key: String, _ expected: String) -> ConfigurationError {
            let node = fields[key]
            return ConfigurationError(
                path: path, line: node?.position.line ?? root.position.line,
                column: node?.position.column ?? root.position.column,
                message: node == nil
                    ? "missing required setting '\(key)'"
                    : "setting '\(key)' must be \(expected), found \(node?.typeName ?? "nothing")")
        }
        func string(_ key: String) throws(ConfigurationError) -> String? {
            guard let node = fields[key] else { return nil }
            guard case .string(let value) = node.value else { throw fail(key, "a string") }
            return value
        }
        func dictionary<Value>(
            _ key: String, _ expected: String, _ convert: (ServiceOptions.Value) -> Value?
        ) throws(ConfigurationError) -> [String: Value] {
            guard let node = fields[key] else { return [:] }
            guard case .object = node.value else { throw fail(key, expected) }
            var result: [String: Value] = [:]
            for entry in node.members {
                guard let value = convert(entry.value.value) else {
                    throw ConfigurationError(
                        path: path, line: entry.value.position.line, column: entry.value.position.column,
                        message: "setting '\(key).\(entry.key)' has the wrong type; '\(key)' must be \(expected)")
                }
                result[entry.key] = value
            }
            return result
        }

        guard let appName = try string("appName") else { throw fail("appName", "a string") }
        return AppConfiguration(
            appName: appName,
            environment: try string("environment") ?? "production",
            deepLinkScheme: try string("deepLinkScheme"),
            routes: try dictionary("routes", "an object of strings") {
                if case .string(let value) = $0 { value } else { nil }
            },
            featureFlags: try dictionary("featureFlags", "an object of booleans") {
                if case .bool(let value) = $0 { value } else { nil }
            },
            raw: raw,
            sourcePath: path)
    }
}
