internal import Container

/// The bounds of the config format (documented in `Configs/README.md`, "Limits").
///
/// Every number and size a config file gives has an upper bound, so that a mistyped or hostile
/// file gets a clear error (``ConfigError/Code/limitExceeded``, with the place and the limit)
/// instead of hours of retries, a sleep that never ends, or gigabytes of memory. The bounds are
/// far above what a start-up graph needs.
public enum ConfigLimits {
    /// The largest config file: 16 MiB. Checked before the file is read.
    public static let maxFileBytes = 16 << 20
    /// The most services a file may declare.
    public static let maxServices = 100_000
    /// The most `dependsOn` entries of one service.
    public static let maxDependencies = 10_000
    /// The most overlays one load applies (``ConfigLoader/load(path:overlays:registry:pathRoots:)``).
    public static let maxOverlays = 64
    /// The most scopes the `scopes` lists of a config and its overlays declare.
    public static let maxScopes = 1_000
    /// The most `entryPoints` entries.
    public static let maxEntryPoints = 1_000
    /// The longest name (service, `dependsOn` entry, provider or entry point id, `secretOptions`
    /// entry), in UTF-8 bytes: 256.
    public static let maxNameBytes = NameRules.maxBytes
    /// The longest string anywhere in the file (keys and values), in UTF-8 bytes: 1 MiB.
    public static let maxStringBytes = 1 << 20
    /// The deepest nesting of arrays and objects in the file (the top-level object is 1).
    public static let maxNestingDepth = 64
    /// The most runs of one node in one build, the first included (`retry.maxAttempts`).
    public static let maxRetryAttempts = 100
    /// The longest retry delay (`retry.initialDelayMs`, `retry.maxDelayMs`): one day, in milliseconds.
    public static let maxRetryDelayMs = 86_400_000
    /// The largest backoff factor (`retry.multiplier`).
    public static let maxRetryMultiplier = 100
    /// The longest node timeout (`timeoutMs`): one hour, in milliseconds.
    public static let maxTimeoutMs = 3_600_000
}
