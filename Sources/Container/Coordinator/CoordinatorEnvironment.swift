/// What the app's coordinator and every scope instance's share: the build policy, the tracer
/// and the redactor.
///
/// One object, referenced by each storage: a scope instance's storage held its own copy of
/// the policy (80 bytes) and two more references, in every one of possibly thousands of
/// instances.
final class CoordinatorEnvironment: Sendable {
    let policy: BuildPolicy
    let tracer: Tracer
    let redactor: Redactor
    /// ``BuildPolicy/inlineBudget`` in nanoseconds when builds may run quick nodes inline
    /// (untraced, ``BuildPolicy/FailureMode/continueIndependent``); 0 otherwise.
    let inlineBudget: UInt32

    init(policy: BuildPolicy, tracer: Tracer, redactor: Redactor) {
        self.policy = policy
        self.tracer = tracer
        self.redactor = redactor
        inlineBudget = policy.inlineNanoseconds(traced: tracer.isEnabled)
    }

    /// Whether `ticket`'s build starts on the thread that launches it (see ``BuildTaskHandle``):
    /// the nodes it builds are few (a small graph, or a few known missing slots of a large one)
    /// and were quick when they last ran, in all at most the inline budget, so the launching
    /// caller is held up no longer than that.
    func startsOnLaunchingThread(_ ticket: BuildTicket) -> Bool {
        guard inlineBudget > 0 else { return false }
        let times = ticket.graph.runTimes
        if let missing = ticket.missingSlots { return times.total(of: missing, isAtMost: inlineBudget) }
        return times.total(of: 0..<ticket.graph.builtCount, isAtMost: inlineBudget)
    }
}
