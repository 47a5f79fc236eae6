/// How a build spends threads on quick providers: the scheduler's one tuning value, not part of
/// the public ``BuildPolicy`` (the benchmark sets it; an app has no reason to).
///
/// A node whose provider took at most ``inlineBudget`` the last time it ran is run by the task
/// that made it ready rather than in a child task of its own, while the quick nodes waiting for
/// that task add up to at most the budget; a request whose whole build is a few such nodes
/// starts it on the requesting thread (see ``BuildWorker``). Builds that fail fast never run a
/// node inline: a failure must be able to cancel the others at once.
package struct SchedulerTuning: Sendable, Equatable {
    /// The budget of quick work one task takes on (0 to ``maximumInlineBudget``).
    package let inlineBudget: Duration
    /// ``inlineBudget`` in nanoseconds.
    let inlineNanoseconds: UInt32

    /// The largest budget: beyond a millisecond a child task costs nothing in comparison.
    package static let maximumInlineBudget = Duration.milliseconds(1)

    /// A tuning with `inlineBudget`, clamped to 0...``maximumInlineBudget`` (`.zero` turns it off).
    package init(inlineBudget: Duration = .microseconds(20)) {
        self.inlineBudget = min(max(.zero, inlineBudget), Self.maximumInlineBudget)
        inlineNanoseconds = NodeRunTimes.nanoseconds(self.inlineBudget)
    }

    /// The default: 20 µs.
    package static let `default` = SchedulerTuning()
    /// No node runs inline and no build starts on the requesting thread.
    package static let off = SchedulerTuning(inlineBudget: .zero)

    /// The budget a build of `policy` may use: none when it fails fast.
    func budget(for policy: BuildPolicy) -> UInt32 {
        policy.failureMode == .continueIndependent ? inlineNanoseconds : 0
    }
}
