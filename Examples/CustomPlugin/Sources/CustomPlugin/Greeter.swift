import Container
import Plugins

/// The value the `greeter` provider makes.
struct Greeter: Sendable {
    let appName: String
    let greeting: String

    func greet(_ session: Session) -> String {
        "\(greeting), \(session.userID ?? "guest")! Welcome to \(appName)."
    }
}

extension ServiceKey where Value == Greeter {
    /// The `greeter` service.
    static let greeter = ServiceKey("greeter")
}
