public import Container

/// Opens a push notification: runs in the `push` scope, reads the scope's detail and the app's
/// analytics (which no scoped service uses: it comes from the app's snapshot).
public struct PushEntryPoint: EntryPoint {
    public let id = "push"
    public var scope: String? { "push" }

    @Needs(.pushDetail) var detail: PushDetail
    @Needs(.analytics) var analytics: Analytics

    public init() {}

    public func run(_ services: ScopedServices) async throws -> String {
        analytics.track("opened: \(detail.text)")
    }
}
