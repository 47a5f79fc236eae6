internal import Container

/// The config format in one place: the version, the keys each object allows, and the bounds of
/// its numbers. `Configs/README.md` ("Keys", "Overlays", "Limits") documents the same.
enum ConfigSchema {
    /// The format version a file must declare.
    static let supportedVersion = 1

    /// A config file's top-level keys.
    static let topLevelKeys = ["version", "description", "policy", "scopes", "services", "entryPoints"]
    /// The keys of a scope declared as an object.
    static let scopeKeys = ["name", "parent", "description"]
    /// An overlay file's top-level keys: a config's, plus the `overlay` marker.
    static let overlayKeys = ["version", "overlay", "description", "policy", "scopes", "services", "entryPoints"]
    /// `policy`'s keys (in a config, and merged key by key from overlays).
    static let policyKeys = ["failFast", "unclassifiedFailure", "maxAttempts", "retryAfterMs", "retryAfterMaxMs"]
    /// A service's keys.
    static let serviceKeys = [
        "name", "provider", "dependsOn", "options", "secretOptions", "timeoutMs", "retry", "failure", "scope", "group",
        "start", "optional", "sync", "isolation", "priority", "description",
    ]
    /// A service of an overlay: a service's keys, plus `add` (declares a new service) and `remove`.
    static let overlayServiceKeys = serviceKeys + ["add", "remove"]
    /// The keys an overlay may set to `null`, giving the service the default back.
    static let resettableServiceKeys = [
        "dependsOn", "options", "secretOptions", "timeoutMs", "retry", "failure", "scope", "group", "start",
        "optional", "sync", "isolation", "priority",
    ]
    /// Top-level keys of overlays found in a config, with what to say about them.
    static let overlayOnlyKeys = [
        "overlay": "this file is an overlay; load it on top of a config (ConfigLoader.load(path:overlays:), "
            + "container-demo --overlay FILE)"
    ]
    /// Service keys of overlays found in a config, with what to say about them.
    static let overlayOnlyServiceKeys = [
        "add": "\"add\": true declares a new service in an overlay; in a config, every service is new: drop it",
        "remove": "\"remove\": true removes a service in an overlay; in a config, delete the service instead",
    ]
    /// `retry`'s keys (when it is an object).
    static let retryKeys = ["maxAttempts", "initialDelayMs", "multiplier", "maxDelayMs"]
}

/// The bounds of one number of the format, with the words its messages use.
struct NumberLimit {
    /// The smallest value, and whether it is allowed itself.
    let minimum: Double
    let minimumIncluded: Bool
    /// The message for a value below it.
    let belowMinimum: String
    let maximum: Double
    let maximumText: String
    /// The ``ConfigLimits`` member that documents it.
    let name: String
    /// How to get under it.
    let fix: String

    /// `timeoutMs`.
    static let timeout = NumberLimit(
        // At least a nanosecond: a smaller positive number (1e-300) would be a timeout of zero.
        minimum: 0.000_001, minimumIncluded: true,
        belowMinimum: "must be at least 0.000001 (milliseconds: a nanosecond); remove it for no timeout",
        maximum: Double(ConfigLimits.maxTimeoutMs), maximumText: "\(ConfigLimits.maxTimeoutMs) ms, one hour",
        name: "ConfigLimits.maxTimeoutMs",
        fix: "a node that may take longer should not block start-up; remove timeoutMs for no timeout")
    /// `retry.initialDelayMs`, `retry.maxDelayMs`, `policy.retryAfterMs` and `policy.retryAfterMaxMs`.
    static let delay = NumberLimit(
        minimum: 0, minimumIncluded: true, belowMinimum: "must not be negative",
        maximum: Double(ConfigLimits.maxRetryDelayMs), maximumText: "\(ConfigLimits.maxRetryDelayMs) ms, one day",
        name: "ConfigLimits.maxRetryDelayMs", fix: "use a shorter delay")
    /// `retry.multiplier`.
    static let multiplier = NumberLimit(
        minimum: 1, minimumIncluded: true, belowMinimum: "must be at least 1",
        maximum: Double(ConfigLimits.maxRetryMultiplier), maximumText: "\(ConfigLimits.maxRetryMultiplier)",
        name: "ConfigLimits.maxRetryMultiplier", fix: "maxDelayMs caps the delay anyway; use a smaller factor")
}

/// The bounds of the integers of the format that count attempts.
enum AttemptLimit {
    /// `retry.maxAttempts` (and `"retry": N`): runs of one node in one build, the first included.
    static let retry = 1...ConfigLimits.maxRetryAttempts
    /// `policy.maxAttempts`: builds of one generation (``/Container/BuildPolicy/maximumAttempts``).
    static let policy = 1...BuildPolicy.maximumAttempts
}
