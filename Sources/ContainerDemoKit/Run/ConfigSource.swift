import Container
import Plugins

/// Loads a config file through the `Plugins` module's loader and the demo's plugins (`ProviderRegistry.demo`).
enum ConfigSource {
    /// The config at `path` with `overlays` applied in order, or every problem the loader found
    /// (its full list, for standard error). `pathRoots` are the folders its path options may start
    /// at (`$data/...`).
    static func load(
        path: String, overlays: [String] = [], registry: ProviderRegistry = .demo, pathRoots: [String: String]
    ) -> Result<LoadedConfig, ConfigProblem> {
        do {
            let config = try ConfigLoader.load(
                path: path, overlays: overlays, registry: registry, pathRoots: pathRoots)
            return .success(
                LoadedConfig(
                    file: config.file, overlays: config.overlays, graph: config.graph, policy: config.policy,
                    entryPoints: config.entryPoints))
        } catch {
            return .failure(ConfigProblem(description: error.description))
        }
    }
}
