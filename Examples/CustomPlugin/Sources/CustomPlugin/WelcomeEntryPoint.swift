import Container
import Plugins

/// An entry-point plugin: greets the restored session and tracks the visit. Its `@Needs`
/// properties are its requirements: written once, checked at load time, filled while it runs.
struct WelcomeEntryPoint: EntryPoint {
    let id = "welcome"

    @Needs(.greeter) var greeter: Greeter
    @Needs(.session) var session: Session
    @Needs(.tracker) var tracker: Tracker

    func run(_ services: ScopedServices) async throws -> String {
        tracker.track("welcome shown to \(session.userID ?? "guest")")
        return "welcome: " + greeter.greet(session)
            + " (tracked by \(tracker.sinks.map(\.name).joined(separator: ", ")))"
    }
}
