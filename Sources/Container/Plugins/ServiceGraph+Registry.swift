extension ServiceGraph {
    /// Validates `specs` and builds the graph.
    ///
    /// Every problem is collected and reported together, in one ``GraphError``: duplicate
    /// names, names that break the naming rules (empty, over 256 bytes, control characters), unknown
    /// providers (listing the known ones), missing dependencies (with a "did you mean"),
    /// dependency cycles (as a path `a -> b -> c -> a`), requirements of readers that name
    /// undeclared services or expect another type, and options a provider rejects. Runs in time
    /// linear in services plus dependencies; "did you mean" suggestions share a fixed budget of
    /// work (`NameSuggestion`), so even a graph where every dependency is unknown stays linear.
    ///
    /// - Parameters:
    ///   - specs: the services, in declaration order (the order of their slots).
    ///   - registry: resolves provider ids; inline providers need no registry.
    ///   - requirements: what readers such as entry points will read, checked by name and type.
    ///   - scopes: the scopes services and readers may live or run in, nested ones with their
    ///     parent (see <doc:Scopes>); a string declares a top-level scope.
    /// - Throws: ``GraphError`` listing every problem.
    public convenience init(
        _ specs: [ServiceSpec], registry: ProviderRegistry = ProviderRegistry(),
        requirements: [ServiceGraph.Requirement] = [], scopes: [Scope] = []
    ) throws(GraphError) {
        try self.init(specs, resolving: registry.providers, requirements: requirements, scopes: scopes)
    }
}

extension ServiceGraph.Requirement {
    /// The requirements of an entry point.
    public init(_ entryPoint: some EntryPoint, location: ConfigLocation? = nil) {
        self.init(
            reader: "entry point '\(entryPoint.id)'", keys: entryPoint.requirements, scope: entryPoint.scope,
            location: location)
    }
}
