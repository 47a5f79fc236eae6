public import Container

/// The `scene` entry point: a new window or scene connects. Picks the scene's content from
/// the configuration and the session.
///
/// Requires `configuration` and `session`.
public struct SceneEntryPoint: EntryPoint {
    /// `scene`.
    public let id = "scene"

    /// The services `scene` reads.
    public static let requirements: [AnyServiceKey] = [ServiceKey.configuration.erased, ServiceKey.session.erased]

    /// Creates the entry point.
    public init() {}

    /// ``requirements``.
    public var requirements: [AnyServiceKey] { Self.requirements }

    /// Returns e.g. `scene: connected Demo home for ada (theme dark)`.
    public func run(_ services: ScopedServices) async throws -> String {
        let configuration = try services[.configuration]
        let session = try services[.session]
        let screen = session.isSignedIn ? "home for \(session.userID ?? "?")" : "sign-in screen"
        let theme: String
        if case .string(let value)? = configuration.raw["theme"] { theme = value } else { theme = "default" }
        return "scene: connected \(configuration.appName) \(screen) (theme \(theme))"
    }
}
