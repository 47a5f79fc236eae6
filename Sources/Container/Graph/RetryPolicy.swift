#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How often a node's provider is retried within one build after a transient error.
///
/// The delay before retry `n` (1-based) is `initialDelay * multiplier^(n-1)`, capped at
/// `maxDelay`. Permanent errors are never retried.
///
/// ```swift
/// RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50))
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Provider runs in one build, the first included; 1 means no retry.
    public var maxAttempts: Int
    /// The delay before the first retry.
    public var initialDelay: Duration
    /// Factor applied to the delay after each retry (at least 1).
    public var multiplier: Double
    /// The longest delay (at most a day).
    public var maxDelay: Duration

    /// Creates a policy; `maxAttempts` below 1 is treated as 1.
    public init(
        maxAttempts: Int, initialDelay: Duration = .zero, multiplier: Double = 2, maxDelay: Duration = .seconds(30)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.multiplier = multiplier.isFinite ? max(1, multiplier) : 1
        // Capped at a day: longer delays in a start-up graph are mistakes, and the cap keeps
        // every computed delay representable.
        self.maxDelay = min(max(.zero, maxDelay), .seconds(86_400))
    }

    /// One run, no retry (the default).
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The delay before retry number `retry` (1-based): `initialDelay * multiplier^(retry-1)`,
    /// capped at `maxDelay`, in constant time whatever `retry` is.
    public func delay(beforeRetry retry: Int) -> Duration {
        // Computed in seconds as a Double and clamped before converting back, so no
        // multiplier or count can overflow `Duration`.
        // The limits are applied here too: the fields are public `var`s.
        let cap = min(max(maxDelay.seconds, 0), 86_400)
        let factor = multiplier.isFinite ? max(1, multiplier) : 1
        let initial = initialDelay.seconds
        let delay: Double
        if retry <= 1 || factor == 1 || !(initial > 0) {
            delay = initial
        } else {
            // pow may overflow to infinity for a large retry; the clamp below turns it into the cap.
            delay = initial * pow(factor, Double(retry - 1))
        }
        let clamped = delay.isFinite ? min(max(delay, 0), cap) : cap
        return .nanoseconds(Int64((clamped * 1e9).rounded()))
    }
}
