import Container

/// One event of the Chrome trace-event format (the JSON object form that Perfetto and
/// `chrome://tracing` open), written as one JSON object.
///
/// Only the phases the renderer needs: complete spans (`X`), instants (`i`, thread-scoped) and
/// metadata (`M`: process and thread names and their order).
struct ChromeTraceEvent {
    /// The event's `ph` field.
    enum Phase: String {
        /// A span with a start (`ts`) and a duration (`dur`).
        case complete = "X"
        /// A point in time.
        case instant = "i"
        /// Names and order of processes and threads.
        case metadata = "M"
    }

    /// An `args` value.
    enum Value {
        case string(String)
        case integer(Int)
        /// A number already written as JSON (e.g. by `DurationFormat`).
        case number(String)
        case strings([String])
        case bool(Bool)

        var json: String {
            switch self {
            case .string(let text): TraceText.jsonString(text)
            case .integer(let value): String(value)
            case .number(let text): text
            case .strings(let items): TraceText.jsonArray(items)
            case .bool(let value): value ? "true" : "false"
            }
        }
    }

    /// An event's `args`, in the order written.
    typealias Args = [(name: String, value: Value)]

    var name: String
    var category: String?
    var phase: Phase
    var pid: Int
    var tid: Int
    /// Start, since the container was created; absent for metadata.
    var start: Duration?
    /// Duration of a complete span.
    var duration: Duration?
    /// A colour name of `chrome://tracing`'s palette (`good`, `bad`, ...); Perfetto picks its own.
    var colour: String?
    var args: Args = []

    /// A metadata event: `process_name`, `process_sort_index`, `thread_name` or `thread_sort_index`.
    static func metadata(_ name: String, pid: Int, tid: Int = 0, _ value: Value) -> ChromeTraceEvent {
        let key = name.hasSuffix("_name") ? "name" : "sort_index"
        return ChromeTraceEvent(
            name: name, phase: .metadata, pid: pid, tid: tid, args: [(key, value)])
    }

    /// The event as one JSON object; times in microseconds (`ts`, `dur`) with up to three decimals.
    var json: String {
        var text = "{\"name\":" + TraceText.jsonString(name)
        if let category { text += ",\"cat\":" + TraceText.jsonString(category) }
        text += ",\"ph\":\"\(phase.rawValue)\""
        if phase == .instant { text += ",\"s\":\"t\"" }
        text += ",\"pid\":\(pid),\"tid\":\(tid)"
        if let start { text += ",\"ts\":" + DurationFormat.microseconds(start) }
        if let duration { text += ",\"dur\":" + DurationFormat.microseconds(duration) }
        if let colour { text += ",\"cname\":" + TraceText.jsonString(colour) }
        if !args.isEmpty {
            text +=
                ",\"args\":{"
                + args.map { TraceText.jsonString($0.name) + ":" + $0.value.json }.joined(separator: ",") + "}"
        }
        return text + "}"
    }
}
