public import Container
import Plugins

/// The demo's `push` entry point: a push notification arrives. It runs in its own instance of the
/// `push` scope, opened with the notification's item (`ScopeParameters.Key.itemID`), and shows the
/// item's detail to the signed-in user: the notification's data is a parameter of its scope,
/// built only on top of a ready app snapshot (Container's Scopes article), never a fallback.
///
/// Requires `session` (app) and `pushDetail` (scope `push`).
public struct PushEntryPoint: EntryPoint {
    /// `push`.
    public let id = "push"
    /// `push`.
    public var scope: String? { "push" }

    @Needs(.session) var session: Session
    @Needs(.pushDetail) var detail: PushDetail

    /// Creates the entry point.
    public init() {}

    /// Returns `push: A-17: Your order has shipped, for ada` or `push: dropped (signed out)`.
    public func run(_ services: ScopedServices) async throws -> String {
        guard session.isSignedIn, let userID = session.userID else { return "push: dropped (signed out)" }
        return "push: \(detail), for \(userID)"
    }
}
