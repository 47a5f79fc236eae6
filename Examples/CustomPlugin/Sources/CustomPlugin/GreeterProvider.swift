import Container
import Plugins

/// A provider plugin: makes a ``Greeter`` from its options and the standard `configuration` service.
struct GreeterProvider: ServiceProvider {
    let id = "greeter"

    /// What it reads: validation checks that its service depends on `configuration`, and
    /// that `configuration` makes an `AppConfiguration`.
    var requirements: [AnyServiceKey] { [ServiceKey.configuration.erased] }

    /// Rejects a missing or empty `greeting` at load time, with every other config error.
    func validate(options: ServiceOptions) throws {
        if try options.string("greeting").isEmpty {
            throw OptionError.invalid("greeting", "must not be empty")
        }
    }

    func make(_ context: ProviderContext) async throws -> Greeter {
        Greeter(appName: try context[.configuration].appName, greeting: try context.options.string("greeting"))
    }
}
