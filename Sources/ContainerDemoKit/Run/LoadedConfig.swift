import Container

/// A config file, loaded and validated: what a config run needs.
struct LoadedConfig: Sendable {
    /// The file it came from.
    let file: String
    /// The overlays applied on top of it, in order (`--overlay`).
    let overlays: [String]
    let graph: ServiceGraph
    let policy: BuildPolicy
    /// The entry points the config lists (empty when it lists none).
    let entryPoints: [any EntryPoint]
}

/// Why a config could not be run: printed in full to standard error, exit status 2.
struct ConfigProblem: Error, Sendable, CustomStringConvertible {
    let description: String
}
