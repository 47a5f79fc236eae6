public import Container

/// The options of the `configuration` provider, typed: the settings file to read.
///
/// ```swift
/// ServiceSpec.configuration(.configuration, ConfigurationOptions(path: settingsPath))
/// ```
public struct ConfigurationOptions: Sendable, Hashable {
    /// The settings JSON file (`path`): absolute, or relative (in code: to the current
    /// directory; in a config: to its folder).
    public var path: String

    /// Creates the options.
    public init(path: String) { self.path = path }

    /// Reads a service's options as the `configuration` provider does (the path as written).
    /// - Throws: ``/Container/OptionError`` when `path` is missing, not a string or empty, or
    ///   for any other option (but `description` and options marked secret).
    public init(_ options: ServiceOptions) throws(OptionError) {
        try options.refuseUnknownKeys(["path", "description"], provider: "configuration")
        path = try options.string("path")
        guard !path.isEmpty else { throw .invalid("path", "must not be empty; give the settings file's path") }
    }

    /// The options a config file with this path gives the provider: `{"path": ...}`.
    public var serviceOptions: ServiceOptions { ServiceOptions(["path": .string(path)]) }
}
