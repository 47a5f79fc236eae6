public import Container

extension ServiceGraph.Override {
    /// The service of `key` is made by a fake provider, for a test.
    ///
    /// ```swift
    /// let container = try ServiceContainer(graph: graph, overrides: [
    ///     .fake(.database, .failing(.transient)),
    /// ])
    /// ```
    ///
    /// - Parameters:
    ///   - key: the service, with the type its readers expect.
    ///   - dependsOn: its dependencies; `nil` (default) keeps the service's, `[]` drops them.
    ///   - fileID: the caller's file, for the location of errors about the override (default: the call site).
    ///   - line: the caller's line (default: the call site).
    ///   - provider: the fake; keep it to read its ``FakeProvider/calls``.
    public static func fake<Value: Sendable>(
        _ key: ServiceKey<Value>, dependsOn: [String]? = nil, fileID: String = #fileID, line: Int = #line,
        _ provider: FakeProvider<Value>
    ) -> ServiceGraph.Override {
        .provider(key, provider, dependsOn: dependsOn, fileID: fileID, line: line)
    }
}
