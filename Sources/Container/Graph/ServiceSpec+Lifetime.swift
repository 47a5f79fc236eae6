extension ServiceSpec {
    /// How long a service's value lives: the app's life (the default), or one **scope instance**
    /// (a window, a screen, one push notification; see <doc:Scopes>).
    ///
    /// ```swift
    /// ServiceSpec(.pushDetail, dependsOn: ["database"], lifetime: .scope("push")) { context in
    ///     try await ItemDetail.load(try context.parameter(.itemID), from: try context[.database])
    /// }
    /// ```
    ///
    /// A scoped service may depend on app services and on services of its own scope; an app
    /// service may not depend on a scoped one (a *captive dependency*), and two scopes never see
    /// each other's services. Scope names are declared with the graph (`scopes:`, or the config's
    /// top-level `"scopes"`).
    public struct Lifetime: Hashable, Sendable, CustomStringConvertible {
        /// The scope's name, or `nil` for the app.
        public let scope: String?

        private init(scope: String?) { self.scope = scope }

        /// Lives as long as the app's generation: built in the app graph, in `AppServices`.
        public static let app = Lifetime(scope: nil)

        /// Lives as long as one instance of the scope `name` (opened with
        /// ``ServiceContainer/openScope(_:id:parameters:)``).
        public static func scope(_ name: String) -> Lifetime { Lifetime(scope: name) }

        /// `app` or `scope 'push'`.
        public var description: String { scope.map { "scope '\($0)'" } ?? "app" }
    }
}
