import Container

/// Reloads a running container from a new version of its config file (Container's Reload article).
///
/// The one place the demo reloads: it loads the file with the `Plugins` loader (every problem
/// reported, nothing changed when it is invalid) and hands the new graph to
/// `container.reload(_:)`, as `ConfigLoader.reload(path:into:)` does for an app; the demo keeps
/// the loaded config to print and check it.
enum ConfigReload {
    /// Why a reload did not happen.
    enum Failure: Error {
        /// The new file does not load: its problems, in full. The container is unchanged.
        case invalid(ConfigProblem)
        /// The container refused (it was shut down, e.g. by a signal).
        case refused(ContainerError)
    }

    /// Loads `path` with `overlays` on top (the running config's, so a profile stays on across a
    /// reload) and reloads `container` with it.
    static func reload(
        path: String, overlays: [String] = [], into container: ServiceContainer, pathRoots: [String: String]
    ) async -> Result<(config: LoadedConfig, report: ServiceContainer.ReloadReport), Failure> {
        let config: LoadedConfig
        switch ConfigSource.load(path: path, overlays: overlays, pathRoots: pathRoots) {
        case .success(let loaded): config = loaded
        case .failure(let problem): return .failure(.invalid(problem))
        }
        do {
            return .success((config, try await container.reload(config.graph)))
        } catch {
            return .failure(.refused(error))
        }
    }
}
