/// The signed-in user's session, restored from the database by the `session` provider.
///
/// A missing session is a valid value (``signedOut``), not an error. The token is a secret:
/// ``description``, ``debugDescription`` and the value's mirror (`dump`, `print` of containers)
/// show `<redacted>` instead of it, and the provider registers it with the container's
/// redactor so it never appears in a trace or an error.
public struct Session: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The user, or `nil` when signed out.
    public let userID: String?
    /// The session token, or `nil` when signed out. Never print it.
    public let token: String?
    /// When the session was created (as stored), if signed in.
    public let createdAt: String?

    /// Creates a session.
    public init(userID: String?, token: String?, createdAt: String? = nil) {
        self.userID = userID
        self.token = token
        self.createdAt = createdAt
    }

    /// No one is signed in.
    public static let signedOut = Session(userID: nil, token: nil)

    /// Whether a user is signed in.
    public var isSignedIn: Bool { userID != nil && token != nil }

    /// `signed in as ada` or `signed out`; never the token.
    public var description: String {
        guard let userID else { return "signed out" }
        return "signed in as \(userID)"
    }

    /// Like ``description``, with the token shown as `<redacted>`.
    public var debugDescription: String {
        guard let userID else { return "Session(signed out)" }
        return "Session(userID: \(userID), token: <redacted>, createdAt: \(createdAt ?? "unknown"))"
    }

    /// A mirror that hides the token.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userID": userID as Any, "token": (token == nil ? "nil" : "<redacted>") as Any,
                "createdAt": createdAt as Any,
            ])
    }
}
