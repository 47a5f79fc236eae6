public import Container

extension ConfigLoader {
    /// Loads a new version of a config (with its overlays) and reloads `container` with it
    /// (see <doc:ConfigFormat> and ``/Container/ServiceContainer/reload(_:)``): the services the new version
    /// adds or changes (provider, options, dependencies, lifetime, `optional`, timeout, retry, failure) and
    /// everything depending on them are rebuilt, the removed and replaced values torn down, and
    /// every other value carried over, the same instance.
    ///
    /// ```swift
    /// do {
    ///     // The path roots of the first load: app.json's database is at "$data/app.sqlite".
    ///     let report = try await ConfigLoader.reload(
    ///         path: "Configs/app.json", into: container, pathRoots: ["data": dataFolder])
    ///     print(report.rebuilt, report.carriedOver)
    /// } catch let error as ConfigError {
    ///     print(error)   // the new version is invalid: nothing changed, the old snapshot is still published
    /// }
    /// ```
    ///
    /// An invalid new version changes nothing: the load fails before the container is touched,
    /// no provider runs, and the published snapshot stays. The container keeps the policy it
    /// was created with: a changed `policy` in the new version is not applied (create a new
    /// container for a new policy). Its entry points are not run either; the new list is in
    /// ``ConfigLoader/load(path:overlays:registry:pathRoots:)``'s result.
    ///
    /// - Parameters:
    ///   - path: the config file's new version.
    ///   - container: the container to reload.
    ///   - overlays: overlay files applied on top of it, in order.
    ///   - registry: the providers and entry points the file may name; the standard set by default.
    ///   - pathRoots: folders path options may start at as `$name/...`; pass the first load's.
    ///     A service is changed when the folder of a root its options name differs.
    /// - Returns: what was added, removed, changed, rebuilt, carried over and torn down.
    /// - Throws: ``ConfigError`` when the new version is invalid (nothing changed);
    ///   ``/Container/ContainerError`` `.shutDown` when the container is shut down.
    @discardableResult
    public static func reload(
        path: String, into container: ServiceContainer, overlays: [String] = [],
        registry: ProviderRegistry = .standard, pathRoots: [String: String] = [:]
    ) async throws -> ServiceContainer.ReloadReport {
        let config = try load(path: path, overlays: overlays, registry: registry, pathRoots: pathRoots)
        return try await container.reload(config.graph)
    }
}
