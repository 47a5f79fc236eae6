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

    init(policy: BuildPolicy, tuning: SchedulerTuning, redactor: Redactor, inputs: InputStore) {
        self.policy = policy
        self.tuning = tuning
        self.redactor = redactor
        self.inputs = inputs
    }
}
