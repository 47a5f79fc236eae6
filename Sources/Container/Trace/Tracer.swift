import Synchronization

/// Stamps events with the time since the container was created and hands them to the sinks.
///
/// The timestamp is taken and the sinks are called under one lock, so every sink sees
/// events in timestamp order. The lock is the trace's own, never the state machine's.
final class Tracer: Sendable {
    let sinks: [any TraceSink]
    /// Whether any sink listens; when not, callers skip building events.
    let isEnabled: Bool
    let origin: ContinuousClock.Instant
    private let lock = Locked<Void>(())

    init(sinks: [any TraceSink], origin: ContinuousClock.Instant = .now) {
        self.sinks = sinks
        self.isEnabled = !sinks.isEmpty
        self.origin = origin
    }

    /// Time since the container was created.
    var now: Duration { ContinuousClock.now - origin }

    func emit(_ kind: TraceEvent.Kind, generation: Int, attempt: Int) {
        guard isEnabled else { return }
        lock.withLock { _ in
            let event = TraceEvent(time: ContinuousClock.now - origin, generation: generation, attempt: attempt, kind: kind)
            for sink in sinks { sink.record(event) }
        }
    }

    func emit(_ kinds: [TraceEvent.Kind], generation: Int, attempt: Int) {
        guard isEnabled, !kinds.isEmpty else { return }
        lock.withLock { _ in
            for kind in kinds {
                let event = TraceEvent(
                    time: ContinuousClock.now - origin, generation: generation, attempt: attempt, kind: kind)
                for sink in sinks { sink.record(event) }
            }
        }
    }
}
