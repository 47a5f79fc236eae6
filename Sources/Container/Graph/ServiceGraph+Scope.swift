extension ServiceGraph {
    /// A scope the graph declares (see <doc:Scopes>): its name and, for a nested scope, the scope
    /// its instances are opened from.
    ///
    /// A plain string declares a top-level scope, so a list of names stays valid:
    ///
    /// ```swift
    /// let graph = try ServiceGraph(specs, scopes: ["account", .init("scene", parent: "account"), "push"])
    /// ```
    ///
    /// An instance of a nested scope sees the services of its parent chain (its parent instance's,
    /// their parent's, up to the app's) and is closed before its parent. A chain is at most
    /// ``ServiceGraph/maximumScopeDepth`` scopes deep.
    public struct Scope: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The scope's name (`scene`).
        public var name: String
        /// The scope whose instances open this scope's instances (`account`), or `nil` for a
        /// scope opened from the container.
        public var parent: String?
        /// Where the scope was declared, for error messages.
        public var location: ConfigLocation?

        /// Declares the scope `name`, nested in `parent` when given.
        public init(_ name: String, parent: String? = nil, location: ConfigLocation? = nil) {
            self.name = name
            self.parent = parent
            self.location = location
        }

        /// Declares the top-level scope `value`.
        public init(stringLiteral value: String) { self.init(value) }

        /// `scene` or `scene (in account)`.
        public var description: String { parent.map { "\(name) (in \($0))" } ?? name }
    }

    /// How deep scopes may nest: a scope and its ancestors, at most this many (`account`,
    /// `scene`, `detail` is 3).
    public static let maximumScopeDepth = 8

    /// The scope that instances of `scope` are opened from, or `nil` for a top-level (or unknown) scope.
    public func parentScope(of scope: String) -> String? { scopeParents[scope] }

    /// `scope` and its ancestors, innermost first (`detail`, `scene`, `account`).
    func scopeChain(of scope: String) -> [String] {
        var chain = [scope]
        while let parent = scopeParents[chain[chain.count - 1]], chain.count <= Self.maximumScopeDepth {
            chain.append(parent)
        }
        return chain
    }
}
