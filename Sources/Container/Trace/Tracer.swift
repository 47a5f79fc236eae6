/// Stamps events with a sequence number and the time since the container was created,
/// and hands them to the sinks in sequence order.
///
/// The coordinator stamps its events inside its state lock, so the trace is a faithful
/// order of its transitions (a caller that found the container ready always comes after
/// the `snapshot.published` it saw), but the sinks run after that lock is released:
/// ``deliver(_:)`` buffers an event until every earlier one was delivered. Sinks are
/// called one at a time under the trace's own delivery lock, never under the state lock.
final class Tracer: Sendable {
    /// An event with its place in the trace.
    struct Stamped: Sendable {
        let sequence: UInt64
        let event: TraceEvent
    }

    private struct Delivery {
        var next: UInt64 = 0
        var pending: [UInt64: TraceEvent] = [:]
    }

    let sinks: [any TraceSink]
    /// Whether any sink listens; when not, callers skip building events.
    let isEnabled: Bool
    let origin: ContinuousClock.Instant
    /// The next sequence number; timestamps are taken under the same lock, so they grow with it.
    private let sequencer = Locked<UInt64>(0)
    private let delivery = Locked<Delivery>(Delivery())

    init(sinks: [any TraceSink], origin: ContinuousClock.Instant = .now) {
        self.sinks = sinks
        self.isEnabled = !sinks.isEmpty
        self.origin = origin
    }

    /// Time since the container was created.
    var now: Duration { ContinuousClock.now - origin }

    /// Gives events their sequence numbers and timestamps; every stamped event must then be
    /// passed to ``deliver(_:)``, or later events would wait for it forever.
    func stamp(_ kinds: [(kind: TraceEvent.Kind, build: BuildAttempt)], scope: String? = nil) -> [Stamped] {
        guard isEnabled, !kinds.isEmpty else { return [] }
        return sequencer.withLock { next in
            let time = ContinuousClock.now - origin
            return kinds.map { item in
                defer { next += 1 }
                return Stamped(
                    sequence: next,
                    event: TraceEvent(
                        time: time, generation: item.build.generation, attempt: item.build.attempt, kind: item.kind,
                        scope: scope))
            }
        }
    }

    /// Hands stamped events to the sinks, each once, in sequence order.
    func deliver(_ events: [Stamped]) {
        guard !events.isEmpty else { return }
        delivery.withLock { delivery in
            for stamped in events { delivery.pending[stamped.sequence] = stamped.event }
            while let event = delivery.pending.removeValue(forKey: delivery.next) {
                for sink in sinks { sink.record(event) }
                delivery.next += 1
            }
        }
    }

    /// Stamps and delivers one event at once.
    func emit(_ kind: TraceEvent.Kind, build: BuildAttempt, scope: String? = nil) {
        guard isEnabled else { return }
        deliver(stamp([(kind, build)], scope: scope))
    }
}
