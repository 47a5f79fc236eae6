public import Container

/// The `push` entry point: a push notification arrives. It needs only the session (to know
/// whom the notification is for) and never reads local storage directly.
///
/// Requires `session`.
public struct PushEntryPoint: EntryPoint {
    /// `push`.
    public let id = "push"

    /// The services `push` reads: only `session`.
    public static let requirements: [AnyServiceKey] = [ServiceKey.session.erased]

    /// Creates the entry point.
    public init() {}

    /// ``requirements``.
    public var requirements: [AnyServiceKey] { Self.requirements }

    /// Returns `push: delivered to ada` or `push: dropped (signed out)`.
    public func run(_ services: ScopedServices) async throws -> String {
        let session = try services[.session]
        guard session.isSignedIn, let userID = session.userID else { return "push: dropped (signed out)" }
        return "push: delivered to \(userID)"
    }
}
