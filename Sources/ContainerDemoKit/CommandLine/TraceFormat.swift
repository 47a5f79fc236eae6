/// How the demo prints the trace (`--trace`).
public struct TraceFormat: Sendable, Hashable, CustomStringConvertible {
    /// The option value, e.g. `jsonl`.
    public let name: String

    private init(_ name: String) { self.name = name }

    /// An aligned, human-readable timeline followed by a summary of each build (the default).
    public static let text = TraceFormat("text")
    /// JSON Lines, version 1 (`docs/trace-format.md`): one event per line.
    public static let jsonl = TraceFormat("jsonl")
    /// Graphviz DOT of the graph, nodes coloured by their outcome in the last build.
    public static let dot = TraceFormat("dot")
    /// A Mermaid flowchart of the graph, nodes coloured by their outcome in the last build.
    public static let mermaid = TraceFormat("mermaid")
    /// A Mermaid gantt chart of every build's timeline.
    public static let gantt = TraceFormat("gantt")
    /// Chrome trace-event JSON, for Perfetto (ui.perfetto.dev) and `chrome://tracing`: a track
    /// per caller, a span per build and per node run.
    public static let perfetto = TraceFormat("perfetto")

    /// Every format, in the order `--help` lists them.
    public static let all: [TraceFormat] = [.text, .jsonl, .dot, .mermaid, .gantt, .perfetto]

    /// The format called `name`, if any.
    public init?(name: String) {
        guard let format = Self.all.first(where: { $0.name == name }) else { return nil }
        self = format
    }

    /// Whether the output is meant for programs (everything but `text`): the demo keeps it
    /// free of commentary, which goes to standard error instead.
    public var isMachineReadable: Bool { self != .text }

    /// Whether several runs make one document (a JSON object) rather than one document each:
    /// `--scenario all` writes it once, after the last run.
    var isSingleDocument: Bool { self == .perfetto }

    public var description: String { name }
}
