import Container
import Plugins

/// The scope instance the demo opens for a scoped entry point: a window for `scene`, one push
/// notification (about item `A-17`) for `push`, and `<scope>-1` with no parameters for any
/// other scope a config declares.
enum DemoScopeInstances {
    /// The instance id and parameters for an entry point that runs in `scope`.
    static func instance(for scope: String) -> (id: String, parameters: ScopeParameters) {
        switch scope {
        case "scene": ("window-1", [.set(.windowID, to: "window-1")])
        case "push": ("notification-42", [.set(.itemID, to: "A-17")])
        default: ("\(scope)-1", [])
        }
    }
}
