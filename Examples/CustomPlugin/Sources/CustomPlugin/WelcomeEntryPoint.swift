import Container
import Plugins

/// An entry-point plugin: greets the restored session. It declares exactly what it reads.
struct WelcomeEntryPoint: EntryPoint {
    let id = "welcome"
    var requirements: [AnyServiceKey] { [ServiceKey.greeter.erased, ServiceKey.session.erased] }

    func run(_ services: ScopedServices) async throws -> String {
        "welcome: " + (try services[.greeter]).greet(try services[.session])
    }
}
