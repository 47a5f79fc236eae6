/// Trace events collected by a state machine's transitions, stamped by the storage in the same
/// critical section; nothing is built when nobody listens.
struct TraceBuffer {
    let isEnabled: Bool
    private(set) var events: [(kind: TraceEvent.Kind, build: BuildAttempt)] = []

    init(isEnabled: Bool) { self.isEnabled = isEnabled }

    /// Records an event (call only when ``isEnabled``).
    mutating func add(_ kind: TraceEvent.Kind, _ build: BuildAttempt) { events.append((kind, build)) }

    /// The events recorded since the last call.
    mutating func take() -> [(kind: TraceEvent.Kind, build: BuildAttempt)] {
        guard !events.isEmpty else { return [] }
        defer { events = [] }
        return events
    }
}
