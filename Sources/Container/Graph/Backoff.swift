extension RetryPolicy {
    /// Growing delays between tries: `initialDelay * multiplier^(n-1)` before try `n + 1`, capped
    /// at `maxDelay`. Used between a node's retries inside a build (``RetryPolicy``) and between a
    /// generation's build attempts (``BuildPolicy/retryAfter``).
    ///
    /// Every field is clamped to a documented range when the backoff is created and again when a
    /// delay is computed (they are public `var`s), so no input can overflow a `Duration`.
    public struct Backoff: Sendable, Hashable {
        /// The longest delay any backoff gives: one day.
        public static let maximumDelay: Duration = .seconds(86_400)

        /// The delay before the first retry (0 up to ``maximumDelay``).
        public var initialDelay: Duration
        /// The factor applied after each retry (1 up to 1,000).
        public var multiplier: Double
        /// The longest delay (0 up to ``maximumDelay``).
        public var maxDelay: Duration

        /// Creates a backoff; out-of-range values are clamped.
        public init(initialDelay: Duration = .zero, multiplier: Double = 2, maxDelay: Duration = .seconds(30)) {
            self.initialDelay = min(max(.zero, initialDelay), Self.maximumDelay)
            self.multiplier = Self.clampedMultiplier(multiplier)
            self.maxDelay = min(max(.zero, maxDelay), Self.maximumDelay)
        }

        /// No delay at all.
        public static let none = RetryPolicy.Backoff(initialDelay: .zero, multiplier: 1, maxDelay: .zero)

        /// The delay before retry number `retry` (1-based), in O(log retry) time.
        public func delay(beforeRetry retry: Int) -> Duration {
            let cap = min(max(maxDelay.seconds, 0), Self.maximumDelay.seconds)
            let initial = min(max(initialDelay.seconds, 0), cap)
            guard initial > 0, retry > 1 else { return Self.duration(seconds: initial) }
            // initial * multiplier^(retry-1) by squaring, stopping once the cap is reached: the
            // factor only grows, so the rest cannot bring the delay below the cap.
            let limit = cap / initial
            var factor = Self.clampedMultiplier(multiplier)
            var exponent = retry - 1
            var power = 1.0
            while exponent > 0 && power < limit {
                if exponent & 1 == 1 { power *= factor }
                exponent >>= 1
                if exponent > 0 { factor *= factor }  // may reach +infinity: the delay is then the cap
            }
            return Self.duration(seconds: min(cap, initial * power))
        }

        private static func clampedMultiplier(_ value: Double) -> Double {
            value.isFinite ? min(max(1, value), 1_000) : 1
        }

        private static func duration(seconds: Double) -> Duration {
            .nanoseconds(Int64((min(max(seconds, 0), maximumDelay.seconds) * 1e9).rounded()))
        }
    }
}
