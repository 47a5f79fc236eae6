/// Renders a trace as a human-readable, aligned timeline, followed by a summary of each
/// build: who shared it (and in what state each caller found the container), and every
/// node's start, end, duration and outcome.
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

    /// One aligned line per event: time, generation and attempt, subject, name, what happened.
    public func renderEvents(_ events: [TraceEvent]) -> String {
        let rows = events.map(row)
        let timeWidth = rows.map(\.time.count).max() ?? 0
        let nameWidth = min(rows.map(\.name.count).max() ?? 0, 32)
        let verbWidth = rows.map(\.verb.text.count).max() ?? 0
        let subjectWidth = rows.map(\.subject.count).max() ?? 0
        var lines: [String] = []
        for row in rows {
            var line = "  " + paint(pad(row.time, timeWidth, right: true), .dim)
            line += "  " + paint("g\(row.generation) a\(row.attempt)", .dim)
            line += "  " + pad(row.subject, subjectWidth)
            line += " " + paint(pad(row.name, nameWidth), .bold)
            line += "  " + paint(pad(row.verb.text, verbWidth), row.verb.tone)
            if !row.detail.isEmpty { line += "  " + row.detail }
            lines.append(trimmingTrailingSpaces(line))
        }
        return lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    private struct Row {
        let time: String
        let generation: Int
        let attempt: Int
        let subject: String
        let name: String
        let verb: (text: String, tone: Tone)
        let detail: String
    }

    private func row(_ event: TraceEvent) -> Row {
        let (subject, name, verb, detail) = describe(event.kind)
        return Row(
            time: Self.clock(event.time), generation: event.generation, attempt: event.attempt, subject: subject,
            name: name, verb: verb, detail: detail)
    }

    private func describe(_ kind: TraceEvent.Kind) -> (String, String, (String, Tone), String) {
        switch kind {
        case .buildStarted:
            return ("build", "", ("started", .plain), "")
        case .nodeStarted(let node):
            return ("node", node, ("started", .plain), "")
        case .nodeSucceeded(let node, let duration):
            return ("node", node, ("succeeded", .good), "in \(duration.formattedMilliseconds)")
        case .nodeFailed(let node, let failure, let error):
            return ("node", node, ("failed", .bad), "\(failure): \(error)")
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
        case .callerJoined(let caller, let state):
            let detail: String
            switch state {
            case .idle: detail = "found idle → starts the build"
            case .running: detail = "found running → joins the build"
            case .ready: detail = "found ready → gets the snapshot at once"
            case .failed: detail = "found failed → gets the failure at once"
            case .waiting: detail = "found waiting → gets the last failure at once (next attempt not allowed yet)"
            case .shutDown: detail = "found the container shut down"
            }
            return ("caller", caller, ("joined", .plain), detail)
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
    static func describe(_ change: GenerationChange) -> String {
        var parts: [String] = []
        if !change.added.isEmpty { parts.append("added " + change.added.joined(separator: ", ")) }
        if !change.removed.isEmpty { parts.append("removed " + change.removed.joined(separator: ", ")) }
        if !change.changed.isEmpty { parts.append("changed " + change.changed.joined(separator: ", ")) }
        if let rebuilt = change.invalidated, !rebuilt.isEmpty {
            parts.append("rebuilding " + rebuilt.joined(separator: ", "))
        }
        return parts.isEmpty ? "nothing changed" : parts.joined(separator: "; ")
    }

    // MARK: Summary

    /// One block per build attempt (and per generation reset): the callers, and the node table.
    public func renderSummary(_ events: [TraceEvent]) -> String {
        var blocks: [String] = []
        for attempt in Self.attempts(in: events) {
            blocks.append(renderAttempt(attempt))
        }
        for event in events {
            if case .generationReset(let change) = event.kind {
                let (from, to, invalidated) = (change.from, change.to, change.invalidated)
                let torn = events.compactMap { later -> String? in
                    guard later.generation == from, case .nodeTornDown(let node, let error) = later.kind,
                        later.time >= event.time
                    else { return nil }
                    return error == nil ? node : "\(node) (teardown failed)"
                }
                var text = "reset at \(Self.clock(event.time).trimmingLeadingSpaces): generation \(from) → \(to), "
                text += invalidated.map { "invalidated \(list($0))" } ?? "invalidated every service"
                text += torn.isEmpty ? "" : "; torn down in order: " + torn.joined(separator: ", ")
                blocks.append(text + "\n")
            }
        }
        return blocks.joined(separator: "\n")
    }

    fileprivate struct Attempt {
        let generation: Int
        let attempt: Int
        var buildStart: Duration?
        var buildEnd: Duration?
        var result: String?
        var resultTone: Tone = .plain
        var joined: [(caller: String, state: CallerState)] = []
        var cancelled: [String] = []
        var nodes: [String] = []
        var nodeStart: [String: Duration] = [:]
        var nodeEnd: [String: Duration] = [:]
        var outcome: [String: (text: String, tone: Tone)] = [:]
    }

    private static func attempts(in events: [TraceEvent]) -> [Attempt] {
        var order: [String] = []
        var attempts: [String: Attempt] = [:]
        for event in events {
            let key = "\(event.generation).\(event.attempt)"
            switch event.kind {
            case .generationReset, .nodeTornDown, .containerShutdown: continue
            default: break
            }
            if attempts[key] == nil {
                order.append(key)
                attempts[key] = Attempt(generation: event.generation, attempt: event.attempt)
            }
            attempts[key]?.record(event)
        }
        return order.compactMap { attempts[$0] }
    }

    private func renderAttempt(_ attempt: Attempt) -> String {
        var lines: [String] = []
        var header = "generation \(attempt.generation), attempt \(attempt.attempt)"
        if let start = attempt.buildStart {
            let builders = attempt.joined.filter { $0.state == .idle || $0.state == .running }
            header += ": one build"
            if let result = attempt.result {
                header += ", " + paint(result, attempt.resultTone)
                if let end = attempt.buildEnd { header += " after \((end - start).formattedMilliseconds)" }
            }
            header += builders.count == 1 ? ", for 1 caller" : ", shared by \(builders.count) callers"
        } else {
            header += ": no build"
        }
        lines.append(header)
        let groups: [(CallerState, String)] = [
            (.idle, "started the build (found idle)"), (.running, "joined it (found running)"),
            (.ready, "found it ready"), (.failed, "found it failed"), (.shutDown, "found it shut down"),
        ]
        for (state, text) in groups {
            let callers = attempt.joined.filter { $0.state == state }.map(\.caller)
            guard !callers.isEmpty else { continue }
            lines.append("  \(text): \(Self.abbreviated(callers))")
        }
        if !attempt.cancelled.isEmpty {
            lines.append("  cancelled while waiting: \(Self.abbreviated(attempt.cancelled))")
        }
        guard !attempt.nodes.isEmpty else { return lines.joined(separator: "\n") + "\n" }
        let header2 = ["node", "start", "end", "duration", "outcome"]
        var table: [[String]] = []
        var tones: [Tone] = []
        for node in attempt.nodes {
            let start = attempt.nodeStart[node]
            let end = attempt.nodeEnd[node]
            let duration = start.flatMap { start in end.map { $0 - start } }
            let outcome = attempt.outcome[node] ?? ("(no outcome)", Tone.bad)
            table.append([
                node, start.map(Self.clock) ?? "-", end.map(Self.clock) ?? "-",
                duration.map(Self.clock) ?? "-", outcome.text,
            ])
            tones.append(outcome.tone)
        }
        var widths = header2.map(\.count)
        for row in table {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        widths[0] = min(widths[0], 32)
        func format(_ cells: [String], tone: Tone?) -> String {
            var text = "  " + pad(cells[0], widths[0])
            for column in 1...3 { text += "  " + pad(cells[column].trimmingLeadingSpaces, widths[column], right: true) }
            text += "  " + (tone.map { paint(cells[4], $0) } ?? cells[4])
            return trimmingTrailingSpaces(text)
        }
        lines.append(paint(format(header2, tone: nil), .dim))
        for (row, tone) in zip(table, tones) { lines.append(format(row, tone: tone)) }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func abbreviated(_ names: [String]) -> String {
        if names.count <= 8 { return names.joined(separator: ", ") }
        return names.prefix(6).joined(separator: ", ") + ", … and \(names.count - 6) more"
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

    private func paint(_ text: String, _ tone: Tone) -> String {
        guard colored, let code = tone.code, !text.isEmpty else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let missing = width - text.count
        guard missing > 0 else { return text }
        let spaces = String(repeating: " ", count: missing)
        return right ? spaces + text : text + spaces
    }

    private func trimmingTrailingSpaces(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }

    private func list(_ names: [String]) -> String { names.joined(separator: ", ") }

    /// Milliseconds with three decimals, e.g. `12.345ms`.
    static func clock(_ time: Duration) -> String {
        let micro = TraceText.microseconds(time)
        let whole = micro / 1_000
        let fraction = String(abs(micro % 1_000))
        return "\(micro < 0 && whole == 0 ? "-" : "")\(whole)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction + "ms"
    }
}

extension TimelineRenderer.Attempt {
    fileprivate mutating func record(_ event: TraceEvent) {
        switch event.kind {
        case .buildStarted:
            buildStart = event.time
        case .snapshotPublished(let services):
            buildEnd = event.time
            result = "published \(services) services"
            resultTone = .good
        case .buildFailed(let failure, _, _):
            buildEnd = event.time
            result = "failed (\(failure))"
            resultTone = .bad
        case .buildCancelled:
            buildEnd = event.time
            result = "cancelled"
            resultTone = .warn
        case .callerJoined(let caller, let state):
            joined.append((caller, state))
        case .callerCancelled(let caller):
            cancelled.append(caller)
        case .nodeStarted(let node):
            if nodeStart[node] == nil { nodeStart[node] = event.time }
            note(node)
        case .nodeSucceeded(let node, _):
            finish(node, at: event.time, "succeeded", .good)
        case .nodeFailed(let node, let failure, let error):
            finish(node, at: event.time, "failed (\(failure)): \(error)", .bad)
        case .nodeSkipped(let node, let because):
            finish(node, at: nil, "skipped (\(because.joined(separator: ", ")) failed)", .warn)
        case .nodeCancelled(let node, let phase):
            finish(node, at: phase == .whileRunning ? event.time : nil, "cancelled (\(phase))", .warn)
        case .nodeReused(let node):
            finish(node, at: nil, "reused", .info)
        case .nodeRetrying, .callerResumed, .generationReset, .nodeTornDown, .containerShutdown, .scopeOpened,
            .scopeClosed:
            break
        }
    }

    private mutating func note(_ node: String) {
        if !nodes.contains(node) { nodes.append(node) }
    }

    private mutating func finish(
        _ node: String, at time: Duration?, _ text: String, _ tone: TimelineRenderer.Tone
    ) {
        note(node)
        if let time { nodeEnd[node] = time }
        outcome[node] = (text, tone)
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
