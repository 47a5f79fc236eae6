import ContainerTesting
import TestSupport
import Testing

@testable import Container

@Suite("Retry delays: the documented backoff, in constant time")
struct RetryPolicyTests {
    /// The first version's loop: multiply once per earlier retry, stop at the cap.
    static func loopDelay(_ policy: RetryPolicy, _ retry: Int) -> Duration {
        let cap = min(max(policy.maxDelay.seconds, 0), 86_400)
        let factor = policy.multiplier.isFinite ? max(1, policy.multiplier) : 1
        var delay = policy.initialDelay.seconds
        var step = 1
        while step < retry && delay < cap {
            delay *= factor
            step += 1
        }
        let clamped = delay.isFinite ? min(max(delay, 0), cap) : cap
        return .nanoseconds(Int64((clamped * 1e9).rounded()))
    }

    @Test("Random policies: the closed form gives the loop's delays (to the nanosecond)")
    func sameAsTheLoop() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let policy = RetryPolicy(
                maxAttempts: 100,
                initialDelay: .milliseconds(Int.random(in: 0...5_000, using: &random)),
                multiplier: [1, 1.5, 2, 3, 10, 100, Double.random(in: 1...20, using: &random)].randomElement(
                    using: &random) ?? 2,
                maxDelay: .milliseconds(Int.random(in: 0...90_000_000, using: &random)))
            let retry = Int.random(in: -1...120, using: &random)
            let closed = policy.delay(beforeRetry: retry)
            let looped = Self.loopDelay(policy, retry)
            #expect(
                closed - looped <= .nanoseconds(1) && looped - closed <= .nanoseconds(1),
                "\(policy), retry \(retry): \(closed) vs \(looped)")
        }
    }

    @Test("Delays cost the same whatever the retry number (the loop took a million steps per call)")
    func constantTime() {
        let policy = RetryPolicy(maxAttempts: 100, initialDelay: .zero, multiplier: 2)
        let clock = ContinuousClock()
        let start = clock.now
        var total = Duration.zero
        // Retry numbers near a billion: a loop per retry number would take hours, so a bound far
        // above a busy machine's stalls still tells the two apart.
        for retry in 1_000_000_000..<1_000_001_000 { total += policy.delay(beforeRetry: retry) }
        let elapsed = clock.now - start
        #expect(total == .zero)
        #expect(elapsed < .seconds(10), "1,000 delays took \(elapsed)")
        let growing = RetryPolicy(maxAttempts: 100, initialDelay: .milliseconds(1), multiplier: 1.000_001)
        #expect(growing.delay(beforeRetry: Int.max) == .seconds(30))
    }
}
