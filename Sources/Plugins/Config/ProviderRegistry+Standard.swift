public import Container

extension ProviderRegistry {
    /// A registry holding every standard provider (`configuration`, `sqlite`, `session`,
    /// `simulated`, and the scoped `sceneRouter` and `pushDetail`) and entry point (`launch`,
    /// `deeplink`, and the scoped `scene` and `push`).
    ///
    /// Each read makes a fresh registry with fresh provider instances. Add your own plugins
    /// to a copy:
    ///
    /// ```swift
    /// var registry = ProviderRegistry.standard
    /// try registry.register(GreeterProvider())
    /// try registry.register(entryPoint: GreetEntryPoint())
    /// ```
    public static var standard: ProviderRegistry {
        var registry = ProviderRegistry()
        do {
            try registry.register(ConfigurationProvider())
            try registry.register(SQLiteProvider())
            try registry.register(SessionProvider())
            try registry.register(SimulatedProvider())
            try registry.register(SceneRouterProvider())
            try registry.register(PushDetailProvider())
            try registry.register(entryPoint: LaunchEntryPoint())
            try registry.register(entryPoint: SceneEntryPoint())
            try registry.register(entryPoint: DeepLinkEntryPoint())
            try registry.register(entryPoint: PushEntryPoint())
        } catch {
            preconditionFailure("the standard plugins have distinct ids: \(error)")
        }
        return registry
    }
}
