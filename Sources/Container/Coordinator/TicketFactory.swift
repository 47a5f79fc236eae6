/// What makes a build's ticket: what every build of one coordinator shares.
struct TicketFactory: Sendable {
    /// What the app's coordinator and its scope instances share.
    let settings: CoordinatorSettings
    /// The coordinator's tracer (a scope instance's labels its events).
    let tracer: Tracer
    /// The scope instance (`push#notification-42`), `nil` for the app.
    let scopeInstance: String?
    let parameters: ScopeParameters

    var policy: BuildPolicy { settings.policy }
    var tuning: SchedulerTuning { settings.tuning }
    var redactor: Redactor { settings.redactor }
    /// The container's inputs (a scope instance shares its app's).
    var inputs: InputStore { settings.inputs }

    init(settings: CoordinatorSettings, tracer: Tracer, scopeInstance: String?, parameters: ScopeParameters) {
        self.settings = settings
        self.tracer = tracer
        self.scopeInstance = scopeInstance
        self.parameters = parameters
    }

    /// A factory with settings of its own (a state machine driven as a value).
    init(
        policy: BuildPolicy, tuning: SchedulerTuning, tracer: Tracer, redactor: Redactor, scopeInstance: String?,
        parameters: ScopeParameters, inputs: InputStore = InputStore()
    ) {
        self.init(
            settings: CoordinatorSettings(policy: policy, tuning: tuning, redactor: redactor, inputs: inputs),
            tracer: tracer, scopeInstance: scopeInstance, parameters: parameters)
    }

    func ticket(
        id: Int, build: BuildAttempt, graph: ServiceGraph, values: SlotValues, runTimes: NodeRunTimes, priority: UInt8
    ) -> BuildTicket {
        BuildTicket(
            id: id, build: build, graph: graph,
            info: ProviderContext.BuildInfo(
                generation: build.generation, attempt: build.attempt, scopeInstance: scopeInstance,
                parameters: parameters, redactor: redactor,
                values: BuildValues(base: values, count: graph.nodes.count), inputs: inputs),
            policy: policy, tracer: tracer, runTimes: runTimes, inlineBudget: tuning.budget(for: policy),
            priority: priority)
    }
}
