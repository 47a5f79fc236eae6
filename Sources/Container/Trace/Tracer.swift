/// Stamps events with a sequence number and the time since the container was created,
/// and hands them to the sinks in sequence order.
///
/// The coordinator stamps its events inside its state lock, so the trace is a faithful
/// order of its transitions (a caller that found the container ready always comes after
/// the `snapshot.published` it saw), but the sinks run after that lock is released:
/// ``deliver(_:)`` buffers an event until every earlier one was delivered. Sinks are
/// called one at a time under the trace's own delivery lock, never under the state lock.
///
/// A scope instance's coordinator gets a tracer from ``scoped(_:)``: the same sinks, clock and
/// order as the app's, with every event labelled with the instance (see <doc:Scopes>).
final class Tracer: Sendable {
    /// An event with its place in the trace.
    struct Stamped: Sendable {
        let sequence: UInt64
        let event: TraceEvent
    }

    private struct Delivery {
        var next: UInt64 = 0
        var pending: [UInt64: TraceEvent] = [:]
        /// Callers of ``flushed()``, each with the sequence number up to which it waits.
        var flushes: [(through: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    let sinks: [any TraceSink]
    /// Whether any sink listens; when not, callers skip building events.
    let isEnabled: Bool
    let origin: ContinuousClock.Instant
    /// The scope instance this tracer's events belong to unless a call names one; `nil` for the app.
    let scope: String?
    /// The services replaced by overrides: their `node.started` events say so. The builder emits
    /// plain events; marking them here keeps the scheduler free of override bookkeeping.
    let overridden: Set<String>
    /// The next sequence number; timestamps are taken under the same lock, so they grow with it.
    /// Shared with every tracer made by ``scoped(_:)``, so one container has one order.
    private let sequencer: Locked<UInt64>
    private let delivery: Locked<Delivery>

    init(sinks: [any TraceSink], origin: ContinuousClock.Instant = .now, overridden: Set<String> = []) {
        self.sinks = sinks
        self.isEnabled = !sinks.isEmpty
        self.origin = origin
        self.scope = nil
        self.overridden = overridden
        self.sequencer = Locked(0)
        self.delivery = Locked(Delivery())
    }

    private init(sharing tracer: Tracer, scope: String) {
        self.sinks = tracer.sinks
        self.isEnabled = tracer.isEnabled
        self.origin = tracer.origin
        self.scope = scope
        self.overridden = tracer.overridden
        self.sequencer = tracer.sequencer
        self.delivery = tracer.delivery
    }

    /// A tracer for the scope instance labelled `scope` (`"push#notification-42"`): its events
    /// carry that label and take their place in this tracer's order. Untraced, this tracer
    /// itself (it only tells the time).
    func scoped(_ scope: String) -> Tracer {
        isEnabled ? Tracer(sharing: self, scope: scope) : self
    }

    /// Time since the container was created. Not inlined: inlined into an async function, the
    /// clock's instant (a type of unknown size there) would take a task allocation each time.
    var now: Duration {
        @inline(never) get { ContinuousClock.now - origin }
    }

    /// Gives events their sequence numbers and timestamps; every stamped event must then be
    /// passed to ``deliver(_:)``, or later events would wait for it forever.
    ///
    /// - Parameters:
    ///   - kinds: the events, each with the build attempt it belongs to.
    ///   - scope: the scope instance they belong to; `nil` means this tracer's own ``scope``.
    func stamp(_ kinds: [(kind: TraceEvent.Kind, build: BuildAttempt)], scope: String? = nil) -> [Stamped] {
        guard isEnabled, !kinds.isEmpty else { return [] }
        let scope = scope ?? self.scope
        return sequencer.withLock { next in
            let time = ContinuousClock.now - origin
            return kinds.map { item in
                defer { next += 1 }
                return Stamped(
                    sequence: next,
                    event: TraceEvent(time: time, build: item.build, scope: scope, kind: marked(item.kind)))
            }
        }
    }

    /// `kind`, with the override mark when it starts an overridden service.
    @inline(__always)
    private func marked(_ kind: TraceEvent.Kind) -> TraceEvent.Kind {
        guard !overridden.isEmpty, case .nodeStarted(let node, false, let executor, let priority) = kind,
            overridden.contains(node)
        else {
            return kind
        }
        return .nodeStarted(node: node, overridden: true, executor: executor, priority: priority)
    }

    /// Hands stamped events to the sinks, each once, in sequence order.
    func deliver(_ events: [Stamped]) {
        guard !events.isEmpty else { return }
        let flushed = delivery.withLock { delivery -> [CheckedContinuation<Void, Never>] in
            for stamped in events { delivery.pending[stamped.sequence] = stamped.event }
            while let event = delivery.pending.removeValue(forKey: delivery.next) {
                for sink in sinks { sink.record(event) }
                delivery.next += 1
            }
            guard !delivery.flushes.isEmpty else { return [] }
            let next = delivery.next
            let done = delivery.flushes.filter { $0.through < next }.map(\.continuation)
            delivery.flushes.removeAll { $0.through < next }
            return done
        }
        for continuation in flushed { continuation.resume() }
    }

    /// How many ``flushed()`` calls wait for an event to be delivered (for tests).
    var waitingFlushes: Int { delivery.withLock { $0.flushes.count } }

    /// Returns once every event stamped before the call has reached the sinks: a thread that
    /// stamped an earlier event may deliver it (and those after it) a little later than it
    /// returned from its transition. A shutdown or close waits for this before it returns, so
    /// its trace is complete when the call returns.
    func flushed() async {
        guard isEnabled else { return }
        // The last sequence number stamped so far (none: nothing to wait for).
        let stamped = sequencer.withLock { $0 }
        guard stamped > 0 else { return }
        let through = stamped - 1
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = delivery.withLock { delivery -> Bool in
                guard delivery.next <= through else { return true }
                delivery.flushes.append((through, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Stamps and delivers one event at once; `scope` as in ``stamp(_:scope:)``.
    func emit(_ kind: TraceEvent.Kind, build: BuildAttempt, scope: String? = nil) {
        guard isEnabled else { return }
        deliver(stamp([(kind, build)], scope: scope))
    }
}
