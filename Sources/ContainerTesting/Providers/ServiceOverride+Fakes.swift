public import Container

extension ServiceOverride {
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
    ///   - provider: the fake; keep it to read its ``FakeProvider/calls``.
    public static func fake<Value: Sendable>(
        _ key: ServiceKey<Value>, dependsOn: [String]? = nil, fileID: String = #fileID, line: Int = #line,
        _ provider: FakeProvider<Value>
    ) -> ServiceOverride {
        .provider(key, provider, dependsOn: dependsOn, fileID: fileID, line: line)
    }
}
