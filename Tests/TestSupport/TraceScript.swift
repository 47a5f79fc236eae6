public import Container

/// A trace written by hand, event after event, for tests of renderers and expectations: each event comes `step`
/// microseconds after the previous one.
public struct TraceScript {
    /// An empty trace.
    public init() {}

    /// The events so far, in order.
    public private(set) var events: [TraceEvent] = []
    private var now = 0

    /// Appends `kind` of build `g`/`a` (and scope instance `scope`), `step` µs after the last event.
    public mutating func add(
        _ kind: TraceEvent.Kind, g: Int = 1, a: Int = 1, scope: String? = nil, step: Int = 100
    ) {
        now += step
        events.append(
            TraceEvent(
                time: .microseconds(now), build: BuildAttempt(generation: g, attempt: a), scope: scope, kind: kind))
    }

    /// Appends one event of each kind given, in order, all of build `g`/`a` and `scope`.
    public mutating func add(_ kinds: [TraceEvent.Kind], g: Int = 1, a: Int = 1, scope: String? = nil) {
        for kind in kinds { add(kind, g: g, a: a, scope: scope) }
    }
}
