public import Container

/// Renders a trace as Chrome trace-event JSON, the format that Perfetto (ui.perfetto.dev) and
/// `chrome://tracing` open: a picture of who waited for what, and how long each node took.
///
/// The output is one JSON object, `{"traceEvents":[...],"displayTimeUnit":"ms"}`, with one
/// event per line. The app is a process (`pid` 1) and so is each scope instance; each process
/// has these tracks (threads):
///
/// - `builds`: one span per build attempt (`build g1 a2`), from `build.started` to
///   `snapshot.published`, `build.failed` or `build.cancelled`, with its result;
/// - `lifecycle`: resets and reloads, teardowns and the shutdown as instants, and a scope
///   instance's life (`scope.opened` to `scope.closed`) as a span;
/// - `caller NAME`: one per caller, a span per wait from `caller.joined` to `caller.resumed` or
///   `caller.cancelled`, with the state it found and what it got;
/// - `node NAME`: one per node, a span per run from `node.started` to its outcome (inside its
///   build's span), with the outcome, the failure and its error; nodes that did not run
///   (skipped, reused, cancelled before start) and retries are instants.
///
/// Times are microseconds since the container was created. Spans still open when the trace
/// ends close at its last event with the result `unfinished`. The format is documented in
/// <doc:TraceFormat> (`docs/trace-format.md`).
///
/// ```swift
/// let recorder = TraceRecorder()
/// let container = ServiceContainer(graph: graph, trace: [recorder])
/// _ = try await container.start()
/// try PerfettoRenderer().render(recorder.events).write(toFile: "start.json", atomically: true, encoding: .utf8)
/// // open start.json in https://ui.perfetto.dev or chrome://tracing
/// ```
public struct PerfettoRenderer: Sendable {
    /// The app's process name when a trace is rendered alone.
    public var name: String

    /// A renderer naming the app's process `name`.
    public init(name: String = "container") {
        self.name = name
    }

    /// The Chrome trace JSON of one container's trace.
    public func render(_ events: [TraceEvent]) -> String {
        render(runs: [(name: name, events: events)])
    }

    /// The Chrome trace JSON of several containers' traces in one file, each with its own
    /// processes (named `name` and `name · scope LABEL`), in the order given.
    ///
    /// - Parameter runs: each container's name and events.
    public func render(runs: [(name: String, events: [TraceEvent])]) -> String {
        var lines: [String] = []
        var nextPid = 1
        for run in runs {
            let layout = PerfettoLayout(run.events, name: run.name, firstPid: nextPid)
            nextPid += layout.processes.count
            for process in layout.processes {
                lines += process.chromeEvents().map(\.json)
            }
        }
        return "{\"traceEvents\":[\n" + lines.joined(separator: ",\n") + "\n],\n\"displayTimeUnit\":\"ms\"}\n"
    }
}
