import Container

/// `--retries N` as the attempt budget (The attempt budget article): the demo's containers allow at most
/// 1 + N builds per generation (``/Container/BuildPolicy/maxAttempts``), however many callers retry.
enum AttemptBudget {
    /// `base` (a config's policy: fail-fast, classification, `retryAfter`) with its attempt budget:
    /// 1 + `retries` when `--retries` was given; otherwise the config's own `policy.maxAttempts`,
    /// or 1 when it has none. Never unlimited: the demo's callers retry until the budget ends them.
    static func policy(_ base: BuildPolicy, retries: Int?) -> BuildPolicy {
        var policy = base
        if let retries {
            policy.maxAttempts = min(1 + max(0, retries), BuildPolicy.maximumAttempts)
        } else if policy.maxAttempts == nil {
            policy.maxAttempts = 1
        }
        return policy
    }
}
