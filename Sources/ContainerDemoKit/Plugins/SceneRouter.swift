/// What a window shows: made per `scene` scope instance by the `sceneRouter` provider.
public struct SceneRouter: Sendable, Hashable, CustomStringConvertible {
    /// The window (the instance's `windowID` parameter).
    public let windowID: String
    /// The first screen: home for a signed-in user, sign-in otherwise.
    public let initialScreen: String
    /// The theme from the configuration (`theme`), or `default`.
    public let theme: String

    /// Creates a router.
    public init(windowID: String, initialScreen: String, theme: String) {
        self.windowID = windowID
        self.initialScreen = initialScreen
        self.theme = theme
    }

    /// `window-1: HomeScreen (theme dark)`.
    public var description: String { "\(windowID): \(initialScreen) (theme \(theme))" }
}
