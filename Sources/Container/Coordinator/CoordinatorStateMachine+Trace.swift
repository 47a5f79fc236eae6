/// The machine's trace events: recorded in its transitions, stamped and delivered by the storage.
extension CoordinatorStateMachine {
    /// Records a trace event of the current attempt (or `build`), when anyone listens.
    mutating func record(_ kind: @autoclosure () -> TraceEvent.Kind, _ build: BuildAttempt? = nil) {
        guard trace.isEnabled else { return }
        trace.add(kind(), build ?? currentAttempt)
    }

    /// Traces a caller answered at once.
    mutating func traceAnswer(
        _ label: String, _ key: Demands.Key, found: TraceEvent.CallerState, result: TraceEvent.CallerResult
    ) {
        recordJoined(label, key, found: found)
        record(.callerResumed(caller: label, result: result))
    }

    /// Traces a caller asking for `key`, having found the container in `found`.
    mutating func recordJoined(
        _ label: String, _ key: Demands.Key, found: TraceEvent.CallerState, build: BuildAttempt? = nil
    ) {
        guard trace.isEnabled else { return }
        let request = request(key)
        record(.callerJoined(caller: label, state: found, request: request), build)
    }

    /// What a request for `key` asks, in the trace's words.
    func request(_ key: Demands.Key) -> TraceEvent.Request {
        switch key {
        case .eager: .eager
        case .deferred: .deferred
        case .roots(let slots): .services(slots.map { graph.nodes[$0].name })
        case .names(let names, _): .services(names)
        }
    }
}
