public import Container

/// The app's settings, read from a JSON settings file by the `configuration` provider.
///
/// The well-known fields are typed; everything else in the file is kept in ``raw``:
///
/// ```json
/// { "appName": "Demo", "environment": "development", "deepLinkScheme": "demo",
///   "routes": { "/profile": "ProfileScreen" }, "featureFlags": { "newOnboarding": true } }
/// ```
public struct AppConfiguration: Sendable, Hashable {
    /// The app's display name (required).
    public let appName: String
    /// `development`, `staging`, `production` (default `production`).
    public let environment: String
    /// The URL scheme deep links use, e.g. `demo` for `demo://profile` (optional).
    public let deepLinkScheme: String?
    /// Deep-link paths to screen names, e.g. `/profile` -> `ProfileScreen`.
    public let routes: [String: String]
    /// Feature flags by name.
    public let featureFlags: [String: Bool]
    /// Every top-level value of the settings file, the typed ones included.
    public let raw: [String: ServiceOptions.Value]
    /// The settings file that was read.
    public let sourcePath: String

    /// Creates a configuration.
    public init(
        appName: String, environment: String = "production", deepLinkScheme: String? = nil,
        routes: [String: String] = [:], featureFlags: [String: Bool] = [:], raw: [String: ServiceOptions.Value] = [:],
        sourcePath: String = ""
    ) {
        self.appName = appName
        self.environment = environment
        self.deepLinkScheme = deepLinkScheme
        self.routes = routes
        self.featureFlags = featureFlags
        self.raw = raw
        self.sourcePath = sourcePath
    }

    /// Whether the flag `name` is on (absent flags are off).
    public func isEnabled(_ name: String) -> Bool { featureFlags[name] ?? false }
}
