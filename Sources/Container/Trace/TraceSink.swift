import Synchronization

/// Receives the container's trace events.
///
/// Sinks are called one event at a time, in timestamp order, outside the container's
/// state lock but under the trace's own lock: keep `record` short and never call back
/// into the container from it.
public protocol TraceSink: Sendable {
    /// Handles one event.
    func record(_ event: TraceEvent)
}

/// Keeps every event in memory; for tests and for renderers that need the whole trace.
public final class TraceRecorder: TraceSink {
    private let storage = Locked<[TraceEvent]>([])

    /// An empty recorder.
    public init() {}

    public func record(_ event: TraceEvent) {
        storage.withLock { $0.append(event) }
    }

    /// Every event recorded so far, in order.
    public var events: [TraceEvent] { storage.withLock { $0 } }

    /// Forgets every event.
    public func removeAll() { storage.withLock { $0.removeAll() } }
}

/// Calls a closure for every event.
struct ClosureTraceSink: TraceSink {
    private let handler: @Sendable (TraceEvent) -> Void

    /// A sink that hands each event to `handler`.
    public init(_ handler: @escaping @Sendable (TraceEvent) -> Void) { self.handler = handler }

    public func record(_ event: TraceEvent) { handler(event) }
}
