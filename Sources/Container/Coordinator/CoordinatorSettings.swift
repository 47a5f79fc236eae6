/// What the app's coordinator and every scope instance opened on it share: one object, so an
/// instance holds a reference instead of a copy of each.
final class CoordinatorSettings: Sendable {
    let policy: BuildPolicy
    /// The scheduler's tuning (see ``SchedulerTuning``).
    let tuning: SchedulerTuning
    /// Hides every secret of the graph (scoped services' too) in traces and errors.
    let redactor: Redactor
    /// The values the app supplies for input services.
    let inputs: InputStore
    /// The app's graph of the current generation, under a lock of its own: what a request
    /// checks its keys against before it asks never waits for the app's state lock, which every
    /// node's end takes. Set by the app's coordinator in the transition that starts a generation
    /// (`nil`: a state machine driven as a value).
    let appGraph: Locked<ServiceGraph>?

    init(
        policy: BuildPolicy, tuning: SchedulerTuning, redactor: Redactor, inputs: InputStore,
        appGraph: ServiceGraph? = nil
    ) {
        self.policy = policy
        self.tuning = tuning
        self.redactor = redactor
        self.inputs = inputs
        self.appGraph = appGraph.map { Locked($0) }
    }
}
