extension ServiceContainer {
    /// Creates a container for `graph` with some services replaced, for a test or a preview.
    ///
    /// ```swift
    /// // With the Plugins module's `Database`, in memory instead of the config's file.
    /// let container = try ServiceContainer(graph: config.graph, overrides: [
    ///     .value(.database, try Database(path: ":memory:")),
    /// ])
    /// ```
    ///
    /// The same as `ServiceContainer(graph: try graph.overriding(overrides), ...)`: see
    /// ``ServiceGraph/overriding(_:)`` for the checks. The trace marks each replaced service's
    /// `node.started` as an override.
    ///
    /// - Parameters:
    ///   - graph: the services.
    ///   - overrides: the replacements.
    ///   - policy: fail-fast or not, and the default error classifier.
    ///   - trace: sinks that receive every trace event.
    /// - Throws: ``GraphError`` listing every problem of the overrides.
    public convenience init(
        graph: ServiceGraph, overrides: [ServiceGraph.Override], policy: BuildPolicy = .default,
        trace: [any TraceSink] = []
    ) throws(GraphError) {
        self.init(graph: try graph.overriding(overrides), policy: policy, trace: trace)
    }
}
