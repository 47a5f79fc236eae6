public import Container

extension ProviderRegistry {
    /// A registry holding the standard providers: `configuration` (``ConfigurationProvider``),
    /// `sqlite` (``SQLiteProvider``, with ``Migration/standard`` as its default schema),
    /// `session` (``SessionProvider``) and `simulated` (``SimulatedProvider``).
    ///
    /// It holds no entry points: an entry point is the app's own code (see
    /// <doc:WritingAPlugin>), so a config that lists `entryPoints` is loaded with a registry the
    /// app added them to. Each read makes a fresh registry with fresh provider instances. Add
    /// your own plugins to a copy:
    ///
    /// ```swift
    /// var registry = ProviderRegistry.standard
    /// try registry.register(GreeterProvider())
    /// try registry.register(entryPoint: WelcomeEntryPoint())
    /// ```
    public static var standard: ProviderRegistry {
        var registry = ProviderRegistry()
        do {
            try registry.register(ConfigurationProvider())
            try registry.register(SQLiteProvider())
            try registry.register(SessionProvider())
            try registry.register(SimulatedProvider())
            try registry.register(SynchronousSimulatedProvider())
        } catch {
            preconditionFailure("the standard plugins have distinct ids: \(error)")
        }
        return registry
    }
}
