public import Container
import Plugins

/// The demo's `scene` entry point: a new window or scene connects. It runs in its own instance of the
/// `scene` scope, opened with the window's id (`ScopeParameters.Key.windowID`), and shows what the
/// window's router (`sceneRouter`, built per window) picked.
///
/// Requires `configuration` (app) and `sceneRouter` (scope `scene`).
public struct SceneEntryPoint: EntryPoint {
    /// `scene`.
    public let id = "scene"
    /// `scene`.
    public var scope: String? { "scene" }

    @Needs(.configuration) var configuration: AppConfiguration
    @Needs(.sceneRouter) var router: SceneRouter

    /// Creates the entry point.
    public init() {}

    /// Returns e.g. `scene: connected Demo window-1: HomeScreen for ada (theme dark)`.
    public func run(_ services: ScopedServices) async throws -> String {
        "scene: connected \(configuration.appName) \(router)"
    }
}
