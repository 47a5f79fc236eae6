public import Container

/// Renders a trace as a human-readable, aligned timeline, followed by a summary of each
/// build: who shared it (and in what state each caller found the container), and every
/// node's start, end, duration and outcome.
///
/// When the trace has scope instances (see <doc:TraceFormat>), each line says whose it is in a column after
/// the generation and attempt (`app`, or the instance's label such as `push#notification-42`),
/// and each instance's builds get their own summary blocks. A trace of the app alone has no
/// such column.
///
/// ```swift
/// let recorder = TraceRecorder()
/// let container = ServiceContainer(graph: graph, trace: [recorder])
/// _ = try await container.start()
/// print(TimelineRenderer(colored: false).render(recorder.events))
/// ```
///
/// With `colored`, outcomes are highlighted with ANSI escape codes; pass `false` when the
/// output is not a terminal or `NO_COLOR` is set. Columns are aligned on the plain text.
public struct TimelineRenderer: Sendable {
    /// Whether to use ANSI colours.
    public var colored: Bool

    /// A renderer, with ANSI colours when `colored`.
    public init(colored: Bool = false) {
        self.colored = colored
    }

    /// The event timeline followed by the build summaries.
    public func render(_ events: [TraceEvent]) -> String {
        renderEvents(events) + "\n" + renderSummary(events)
    }

    // MARK: Event lines

    /// One aligned line per event: time, generation and attempt, the scope instance (only when
    /// the trace has one), subject, name, what happened.
    public func renderEvents(_ events: [TraceEvent]) -> String {
        let rows = events.map(row)
        let timeWidth = rows.map(\.time.count).max() ?? 0
        let nameWidth = min(rows.map(\.name.count).max() ?? 0, 32)
        let verbWidth = rows.map(\.verb.text.count).max() ?? 0
        let subjectWidth = rows.map(\.subject.count).max() ?? 0
        let buildWidth = rows.map(\.build.count).max() ?? 0
        let scoped = events.contains { $0.scope != nil }
        let scopeWidth = min(rows.map { $0.scope?.count ?? Self.appLabel.count }.max() ?? 0, 40)
        var lines: [String] = []
        for row in rows {
            var line = "  " + paint(pad(row.time, timeWidth, right: true), .dim)
            line += "  " + paint(pad(row.build, buildWidth), .dim)
            if scoped {
                line += "  " + paint(pad(row.scope ?? Self.appLabel, scopeWidth), row.scope == nil ? .dim : .info)
            }
            line += "  " + pad(row.subject, subjectWidth)
            line += " " + paint(pad(row.name, nameWidth), .bold)
            line += "  " + paint(pad(row.verb.text, verbWidth), row.verb.tone)
            if !row.detail.isEmpty { line += "  " + row.detail }
            lines.append(trimmingTrailingSpaces(line))
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    /// What the scope column says for the app's own events.
    static let appLabel = "app"

    private struct Row {
        let time: String
        /// `g1 a1`.
        let build: String
        let scope: String?
        let subject: String
        let name: String
        let verb: (text: String, tone: Tone)
        let detail: String
    }

    private func row(_ event: TraceEvent) -> Row {
        let (subject, name, verb, detail) = describe(event.kind)
        return Row(
            time: Self.clock(event.time), build: event.build.description, scope: event.scope, subject: subject,
            name: name, verb: verb, detail: detail)
    }

    private func describe(_ kind: TraceEvent.Kind) -> (String, String, (String, Tone), String) {
        switch kind {
        case .buildStarted:
            return ("build", "", ("started", .plain), "")
        case .nodeStarted(let node, let overridden, let executor, _):
            // Only the main actor is marked: most nodes run on the pool, and say nothing new.
            let marks = [overridden ? "by an override" : nil, executor == .main ? "on the main actor" : nil]
            return ("node", node, ("started", .plain), marks.compactMap { $0 }.joined(separator: ", "))
        case .nodeSucceeded(let node, let duration):
            return ("node", node, ("succeeded", .good), "in \(duration.formattedMilliseconds)")
        case .nodeFailed(let node, let failure, let error, let optional):
            let fails = optional ? " (optional: fails no request)" : ""
            return ("node", node, ("failed", optional ? .warn : .bad), "\(failure): \(error)\(fails)")
        case .nodeRetrying(let node, let retry, let delay):
            return ("node", node, ("retrying", .warn), "retry \(retry) after \(delay.formattedMilliseconds)")
        case .nodeSkipped(let node, let because):
            return ("node", node, ("skipped", .warn), "because \(list(because)) failed")
        case .nodeCancelled(let node, let phase):
            return ("node", node, ("cancelled", .warn), phase == .beforeStart ? "before it started" : "while running")
        case .nodeReused(let node):
            return ("node", node, ("reused", .info), "value kept from an earlier attempt or generation")
        case .snapshotPublished(let services):
            return ("snapshot", "", ("published", .good), "\(services) services")
        case .buildFailed(let failure, let roots, let exhausted):
            let cause = roots.isEmpty ? "" : " (\(list(roots)))"
            let budget = exhausted ? "; the last attempt the policy allows" : ""
            return ("build", "", ("failed", .bad), "\(failure)\(cause)\(budget)")
        case .buildCancelled:
            return ("build", "", ("cancelled", .warn), "superseded; it will never publish")
        case .buildAdded(let nodes, let caller):
            return ("build", "", ("added", .plain), "\(nodes.count) for \(caller): \(list(nodes))")
        case .inputSupplied(let node, let replaced):
            return ("input", node, ("supplied", .info), replaced ? "a new value replaces the last" : "")
        case .callerJoined(let caller, let state, let request):
            let detail: String
            switch state {
            case .idle: detail = "found idle → starts the build"
            case .running: detail = "found running → joins the build"
            case .ready: detail = "found ready → gets the snapshot at once"
            case .failed: detail = "found failed → gets the failure at once"
            case .waiting: detail = "found waiting → gets the last failure at once (next attempt not allowed yet)"
            case .shutDown: detail = "found the container shut down"
            }
            let asks = request.map { "asks for \(Self.describe($0)); " } ?? ""
            return ("caller", caller, ("joined", .plain), asks + detail)
        case .callerResumed(let caller, let result):
            let tone: Tone = result == .snapshot ? .good : result == .failure ? .bad : .warn
            return ("caller", caller, ("resumed", tone), "with \(result == .snapshot ? "the snapshot" : "a \(result)")")
        case .callerCancelled(let caller):
            return ("caller", caller, ("cancelled", .warn), "stopped waiting; the build goes on")
        case .generationReset(let change):
            if change.reason == .reload {
                return (
                    "reload", "", ("reload", .info),
                    "generation \(change.from) → \(change.to), \(Self.describe(change))"
                )
            }
            let what = change.invalidated.map { "invalidating \(list($0))" } ?? "invalidating everything"
            return ("reset", "", ("reset", .info), "generation \(change.from) → \(change.to), \(what)")
        case .nodeTornDown(let node, let error):
            if let error { return ("teardown", node, ("failed", .bad), error) }
            return ("teardown", node, ("tornDown", .info), "")
        case .containerShutdown:
            return ("container", "", ("shutdown", .info), "")
        case .scopeOpened:
            return ("scope", "", ("opened", .info), "")
        case .scopeClosed:
            return ("scope", "", ("closed", .info), "")
        }
    }

    /// `added a, b; removed c; changed d; rebuilt d, e`, leaving out empty lists.
    /// `the eager services`, `the deferred services` or `session, feed`.
    static func describe(_ request: TraceEvent.Request) -> String {
        switch request {
        case .eager: "the eager services"
        case .deferred: "the deferred services"
        case .services(let names): names.joined(separator: ", ")
        }
    }

    static func describe(_ change: TraceEvent.GenerationChange) -> String {
        var parts: [String] = []
        if !change.added.isEmpty { parts.append("added " + change.added.joined(separator: ", ")) }
        if !change.removed.isEmpty { parts.append("removed " + change.removed.joined(separator: ", ")) }
        if !change.changed.isEmpty { parts.append("changed " + change.changed.joined(separator: ", ")) }
        if let rebuilt = change.invalidated, !rebuilt.isEmpty {
            parts.append("rebuilding " + rebuilt.joined(separator: ", "))
        }
        return parts.isEmpty ? "nothing changed" : parts.joined(separator: "; ")
    }

    // MARK: Formatting

    /// Tones map to ANSI colours.
    enum Tone {
        case plain, good, bad, warn, info, dim, bold

        var code: String? {
            switch self {
            case .plain: nil
            case .good: "32"
            case .bad: "31"
            case .warn: "33"
            case .info: "36"
            case .dim: "2"
            case .bold: "1"
            }
        }
    }

    func paint(_ text: String, _ tone: Tone) -> String {
        guard colored, let code = tone.code, !text.isEmpty else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let missing = width - text.count
        guard missing > 0 else { return text }
        let spaces = String(repeating: " ", count: missing)
        return right ? spaces + text : text + spaces
    }

    func trimmingTrailingSpaces(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }

    func list(_ names: [String]) -> String { names.joined(separator: ", ") }

    /// Milliseconds with three decimals, e.g. `12.345ms`.
    static func clock(_ time: Duration) -> String { DurationFormat.clock(time) }
}
