import Container

/// One build attempt of the app (`scope` `nil`) or of one scope instance: how the renderers
/// group a trace's events into builds.
struct BuildKey: Hashable {
    let scope: String?
    let build: BuildAttempt

    /// The build `event` belongs to.
    init(_ event: TraceEvent) {
        self.scope = event.scope
        self.build = event.build
    }

    /// Folds `events` into one value per build, in the order of the builds' first events:
    /// `make` starts a build's value, `record` adds each of its events. Events `include`
    /// rejects are left out.
    static func fold<Value>(
        _ events: [TraceEvent], including include: (TraceEvent.Kind) -> Bool, make: (BuildKey) -> Value,
        record: (inout Value, TraceEvent) -> Void
    ) -> [Value] {
        var order: [BuildKey] = []
        var values: [BuildKey: Value] = [:]
        for event in events where include(event.kind) {
            let key = BuildKey(event)
            if values[key] == nil {
                order.append(key)
                values[key] = make(key)
            }
            record(&values[key, default: make(key)], event)
        }
        return order.compactMap { values[$0] }
    }
}
