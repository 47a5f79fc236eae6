public import Container
import Plugins

extension ProviderRegistry {
    /// The demo's registry: the standard providers (`configuration`, `sqlite` with
    /// ``DemoSchema/migrations`` as its default schema, `session`, `simulated`), the demo's
    /// scoped providers `sceneRouter` and `pushDetail`, and its entry points `launch`, `scene`,
    /// `deeplink` (for `demo://profile`) and `push`: what the configs in `Configs/` name.
    ///
    /// Each read makes a fresh registry with fresh provider instances.
    public static var demo: ProviderRegistry {
        var registry = ProviderRegistry()
        do {
            try registry.register(ConfigurationProvider())
            try registry.register(SQLiteProvider(defaultMigrations: DemoSchema.migrations))
            try registry.register(SessionProvider())
            try registry.register(SimulatedProvider())
            try registry.register(SynchronousSimulatedProvider())
            try registry.register(SceneRouterProvider())
            try registry.register(PushDetailProvider())
            try registry.register(entryPoint: LaunchEntryPoint())
            try registry.register(entryPoint: SceneEntryPoint())
            try registry.register(entryPoint: DeepLinkEntryPoint(url: "demo://profile"))
            try registry.register(entryPoint: PushEntryPoint())
        } catch {
            preconditionFailure("the demo's plugins have distinct ids: \(error)")
        }
        return registry
    }
}
