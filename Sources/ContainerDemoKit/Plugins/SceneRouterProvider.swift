public import Container
import Plugins

/// The `sceneRouter` provider, for a service of the `scene` scope: the window's router, from
/// the configuration, the session and the instance's `windowID` parameter (Container's Scopes article).
///
/// Reads `configuration` and `session` (declared in ``requirements``: the service must depend
/// on both). A missing `windowID` is a permanent failure of the node, never a default.
public struct SceneRouterProvider: ServiceProvider {
    /// `sceneRouter`.
    public let id = "sceneRouter"

    /// Creates the provider.
    public init() {}

    /// `configuration` and `session`.
    public var requirements: [AnyServiceKey] { [ServiceKey.configuration.erased, ServiceKey.session.erased] }

    /// Refuses any option but a `description` (the provider reads none): a typo is never ignored.
    public func validate(options: ServiceOptions) throws {
        try options.refuseUnknownKeys(["description"], provider: id)
    }

    /// Makes the router of the window the scope instance was opened for.
    public func make(_ context: ProviderContext) async throws -> SceneRouter {
        let configuration = try context[.configuration]
        let session = try context[.session]
        let theme: String
        if case .string(let value)? = configuration.raw["theme"] { theme = value } else { theme = "default" }
        return SceneRouter(
            windowID: try context.parameter(.windowID),
            initialScreen: session.isSignedIn ? "HomeScreen for \(session.userID ?? "?")" : "SignInScreen",
            theme: theme)
    }
}
