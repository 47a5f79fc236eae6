public import Container
internal import Foundation

/// The `deeplink` entry point: the app is opened by a URL. Routes the link with the settings'
/// `deepLinkScheme` and `routes` (``AppConfiguration``); when no one is signed in, the route
/// goes through sign-in first.
///
/// Requires `configuration` and `session`. Each link is an entry point of its own, made when
/// the link arrives, so the standard registry holds none (a config's `entryPoints` names
/// entry points without arguments); an app that lists `deeplink` in a config registers the
/// one it means:
///
/// ```swift
/// .onOpenURL { url in Task { try await container.run(DeepLinkEntryPoint(url: url.absoluteString)) } }
/// ```
public struct DeepLinkEntryPoint: EntryPoint {
    /// `deeplink`.
    public let id = "deeplink"
    /// The link to open, e.g. `demo://profile`.
    public let url: String

    @Needs(.configuration) var configuration: AppConfiguration
    @Needs(.session) var session: Session

    /// Creates the entry point for `url`, e.g. `demo://profile`.
    public init(url: String) { self.url = url }

    /// Returns e.g. `deeplink: demo://profile -> ProfileScreen (signed in as ada)`.
    public func run(_ services: ScopedServices) async throws -> String {
        var path = Substring(url)
        if let scheme = configuration.deepLinkScheme, path.hasPrefix(scheme + "://") {
            path = path.dropFirst(scheme.count + 3)
        } else if let separator = path.range(of: "://") {
            return "deeplink: \(url) ignored (scheme is not '\(configuration.deepLinkScheme ?? "none")'; "
                + "found '\(path[..<separator.lowerBound])')"
        }
        let route = "/" + path.drop { $0 == "/" }
        guard let screen = configuration.routes[route] else {
            return
                "deeplink: \(url) -> no route for \(route) (known: \(configuration.routes.keys.sorted().joined(separator: ", ")))"
        }
        guard session.isSignedIn else { return "deeplink: \(url) -> SignInScreen, then \(screen)" }
        return "deeplink: \(url) -> \(screen) (\(session))"
    }
}
