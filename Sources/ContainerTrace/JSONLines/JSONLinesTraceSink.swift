public import Container

/// Writes trace events in the JSON Lines trace format, version 1: one JSON object per line.
///
/// Every line carries `"v":1` first, then `t` (seconds since the container was created),
/// `gen`, `attempt` and `event`, then `scope` for an event of a scope instance, then the
/// event's own fields, in a fixed order. The format
/// is documented, field by field, in <doc:TraceFormat> (`docs/trace-format.md`); it is stable for other tools:
/// fields may be added within version 1, never renamed or removed.
///
/// ```swift
/// let sink = JSONLinesTraceSink { line in print(line, terminator: "") }
/// let container = ServiceContainer(graph: graph, trace: [sink])
/// ```
///
/// ```json
/// {"v":1,"t":0.004521,"gen":1,"attempt":1,"event":"node.succeeded","node":"database","durationMs":4.1}
/// ```
///
/// The sink writes each line (with its trailing `"\n"`) through the closure it was given,
/// one call per event, serially: the closure can append to a file handle, a buffer or a pipe.
public struct JSONLinesTraceSink: TraceSink {
    /// The format version written in every line's `v` field.
    public static let version = 1

    private let fields: [(name: String, value: String)]
    private let write: @Sendable (String) -> Void

    /// A sink that hands every encoded line, newline included, to `write`.
    ///
    /// - Parameters:
    ///   - fields: extra string fields appended to every line, after the event's own fields
    ///     (e.g. `[("scenario", "logout")]` to tell several traces apart in one file).
    ///     Names that collide with the format's own fields are ignored.
    ///   - write: receives one line at a time, in event order.
    public init(fields: [(name: String, value: String)] = [], write: @escaping @Sendable (String) -> Void) {
        self.fields = fields.filter { !Self.reservedNames.contains($0.name) }
        self.write = write
    }

    /// Writes `event` as one line.
    public func record(_ event: TraceEvent) {
        write(Self.line(for: event, fields: fields) + "\n")
    }

    /// The JSON object of `event`, without a trailing newline.
    ///
    /// - Parameters:
    ///   - event: the event to encode.
    ///   - fields: extra string fields appended after the event's own fields.
    public static func line(for event: TraceEvent, fields: [(name: String, value: String)] = []) -> String {
        var object = JSONObject()
        object.append("v", raw: String(version))
        object.append("t", raw: DurationFormat.seconds(event.time))
        object.append("gen", raw: String(event.generation))
        object.append("attempt", raw: String(event.attempt))
        object.append("event", string: event.kind.name)
        // Absent for the app's own events (the TraceFormat article).
        if let scope = event.scope { object.append("scope", string: scope) }
        switch event.kind {
        case .buildStarted, .buildCancelled, .containerShutdown, .scopeOpened, .scopeClosed:
            break
        case .nodeStarted(let node, let overridden, let executor, let priority):
            object.append("node", string: node)
            // Present only when true: a trace without overrides reads as before.
            if overridden { object.append("override", raw: "true") }
            if let executor { object.append("executor", string: executor.description) }
            if let priority { object.append("priority", string: priority.description) }
        case .nodeReused(let node):
            object.append("node", string: node)
        case .nodeSucceeded(let node, let duration):
            object.append("node", string: node)
            object.append("durationMs", raw: DurationFormat.milliseconds(duration))
        case .nodeFailed(let node, let failure, let error, let optional):
            object.append("node", string: node)
            object.append("failure", string: failure.rawValue)
            object.append("error", string: error)
            // Present only when true: a graph without optional services traces as before.
            if optional { object.append("optional", raw: "true") }
        case .nodeRetrying(let node, let retry, let delay):
            object.append("node", string: node)
            object.append("retry", raw: String(retry))
            object.append("delayMs", raw: DurationFormat.milliseconds(delay))
        case .nodeSkipped(let node, let because):
            object.append("node", string: node)
            object.append("because", raw: TraceText.jsonArray(because))
        case .nodeCancelled(let node, let phase):
            object.append("node", string: node)
            object.append("phase", string: phase.rawValue)
        case .snapshotPublished(let services):
            object.append("services", raw: String(services))
        case .buildFailed(let failure, let roots, let exhausted):
            object.append("failure", string: failure.rawValue)
            object.append("roots", raw: TraceText.jsonArray(roots))
            if exhausted { object.append("exhausted", raw: "true") }
        case .callerJoined(let caller, let state, let request):
            object.append("caller", string: caller)
            object.append("state", string: state.rawValue)
            switch request {
            case nil: break
            case .eager: object.append("request", string: "eager")
            case .deferred: object.append("request", string: "deferred")
            case .services(let names):
                object.append("request", string: "services")
                object.append("needs", raw: TraceText.jsonArray(names))
            }
        case .buildAdded(let nodes, let caller):
            object.append("nodes", raw: TraceText.jsonArray(nodes))
            object.append("caller", string: caller)
        case .inputSupplied(let node, let replaced):
            object.append("node", string: node)
            object.append("replaced", raw: replaced ? "true" : "false")
        case .callerResumed(let caller, let result):
            object.append("caller", string: caller)
            object.append("result", string: result.rawValue)
        case .callerCancelled(let caller):
            object.append("caller", string: caller)
        case .generationReset(let change):
            object.append("from", raw: String(change.from))
            object.append("to", raw: String(change.to))
            // Absent means "every service" (the TraceFormat article).
            if let invalidated = change.invalidated {
                object.append("invalidated", raw: TraceText.jsonArray(invalidated))
            }
            object.append("reason", string: change.reason.description)
            if change.reason == .reload {
                object.append("added", raw: TraceText.jsonArray(change.added))
                object.append("removed", raw: TraceText.jsonArray(change.removed))
                object.append("changed", raw: TraceText.jsonArray(change.changed))
            }
        case .nodeTornDown(let node, let error):
            object.append("node", string: node)
            if let error { object.append("error", string: error) }
        }
        for field in fields where !reservedNames.contains(field.name) {
            object.append(field.name, string: field.value)
        }
        return object.finished
    }

    /// Every field name the format itself may write; extra fields cannot shadow them (a test
    /// checks that every name written for any event kind is here).
    static let reservedNames: Set<String> = [
        "v", "t", "gen", "attempt", "event", "node", "durationMs", "failure", "error", "retry", "delayMs",
        "because", "phase", "services", "roots", "caller", "state", "result", "from", "to", "invalidated",
        "exhausted", "reason", "added", "removed", "changed", "scope", "optional", "request", "needs", "nodes",
        "replaced", "override", "executor", "priority",
    ]
}

/// A JSON object written field by field, in insertion order.
private struct JSONObject {
    private(set) var text = "{"
    private var isEmpty = true

    mutating func append(_ name: String, raw value: String) {
        text += (isEmpty ? "" : ",") + TraceText.jsonString(name) + ":" + value
        isEmpty = false
    }

    mutating func append(_ name: String, string value: String) {
        append(name, raw: TraceText.jsonString(value))
    }

    var finished: String { text + "}" }
}
