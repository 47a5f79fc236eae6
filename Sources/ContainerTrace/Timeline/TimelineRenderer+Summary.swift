public import Container

/// The summary part of the timeline: one block per build (who shared it, each node's part)
/// and one line per reset.
extension TimelineRenderer {
    /// One block per build attempt (and per generation reset): the callers, and the node table.
    ///
    /// The app's builds and those of each scope instance get separate blocks, in the order of
    /// their first events; a scope instance's blocks start with its label.
    public func renderSummary(_ events: [TraceEvent]) -> String {
        var blocks: [String] = []
        for attempt in Self.attempts(in: events) {
            blocks.append(renderAttempt(attempt))
        }
        for event in events {
            if case .generationReset(let change) = event.kind {
                let (from, to, invalidated) = (change.from, change.to, change.invalidated)
                let torn = events.compactMap { later -> String? in
                    guard later.generation == from, later.scope == event.scope,
                        case .nodeTornDown(let node, let error) = later.kind, later.time >= event.time
                    else { return nil }
                    return error == nil ? node : "\(node) (teardown failed)"
                }
                var text = event.scope.map { "scope \($0): " } ?? ""
                text += "reset at \(Self.clock(event.time).trimmingLeadingSpaces): generation \(from) → \(to), "
                text += invalidated.map { "invalidated \(list($0))" } ?? "invalidated every service"
                text += torn.isEmpty ? "" : "; torn down in order: " + torn.joined(separator: ", ")
                blocks.append(text + "\n")
            }
        }
        return blocks.joined(separator: "\n")
    }

    fileprivate struct Attempt {
        /// The scope instance built, `nil` for the app.
        let scope: String?
        let build: BuildAttempt
        var buildStart: Duration?
        var buildEnd: Duration?
        var result: String?
        var resultTone: Tone = .plain
        var joined: [(caller: String, state: TraceEvent.CallerState)] = []
        var cancelled: [String] = []
        var nodes: [String] = []
        /// ``nodes`` as a set, to note each once in constant time.
        var noted: Set<String> = []
        var nodeStart: [String: Duration] = [:]
        var nodeEnd: [String: Duration] = [:]
        var outcome: [String: (text: String, tone: Tone)] = [:]
        /// The nodes that ran on the main actor, in the order they started.
        var onMainActor: [String] = []
    }

    private static func attempts(in events: [TraceEvent]) -> [Attempt] {
        BuildKey.fold(
            events,
            including: { kind in
                switch kind {
                case .generationReset, .nodeTornDown, .containerShutdown, .scopeOpened, .scopeClosed: false
                default: true
                }
            },
            make: { Attempt(scope: $0.scope, build: $0.build) }, record: { $0.record($1) })
    }

    private func renderAttempt(_ attempt: Attempt) -> String {
        var lines: [String] = []
        var header = attempt.scope.map { "scope \($0), " } ?? ""
        header += "generation \(attempt.build.generation), attempt \(attempt.build.attempt)"
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
        let groups: [(TraceEvent.CallerState, String)] = [
            (.idle, "started the build (found idle)"), (.running, "joined it (found running)"),
            (.ready, "found it ready"), (.failed, "found it failed"),
            (.waiting, "found it waiting (next attempt not allowed yet)"), (.shutDown, "found it shut down"),
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
        if !attempt.onMainActor.isEmpty {
            // The main actor runs them one after another: their time adds up, whatever ran beside.
            let time = attempt.onMainActor.reduce(Duration.zero) { total, node in
                guard let start = attempt.nodeStart[node], let end = attempt.nodeEnd[node] else { return total }
                return total + (end - start)
            }
            lines.append(
                "  on the main actor, one after another: \(Self.abbreviated(attempt.onMainActor)) "
                    + "(\(time.formattedMilliseconds) in all)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func abbreviated(_ names: [String]) -> String {
        if names.count <= 8 { return names.joined(separator: ", ") }
        return names.prefix(6).joined(separator: ", ") + ", … and \(names.count - 6) more"
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
        case .callerJoined(let caller, let state, _):
            joined.append((caller, state))
        case .callerCancelled(let caller):
            cancelled.append(caller)
        case .nodeStarted(let node, _, let executor, _):
            if nodeStart[node] == nil { nodeStart[node] = event.time }
            if executor == .main && !onMainActor.contains(node) { onMainActor.append(node) }
            note(node)
        case .nodeSucceeded(let node, _):
            finish(node, at: event.time, "succeeded", .good)
        case .nodeFailed(let node, let failure, let error, let optional):
            let kind = optional ? "optional, " : ""
            finish(node, at: event.time, "failed (\(kind)\(failure)): \(error)", optional ? .warn : .bad)
        case .nodeSkipped(let node, let because):
            finish(node, at: nil, "skipped (\(because.joined(separator: ", ")) failed)", .warn)
        case .nodeCancelled(let node, let phase):
            finish(node, at: phase == .whileRunning ? event.time : nil, "cancelled (\(phase))", .warn)
        case .nodeReused(let node):
            finish(node, at: nil, "reused", .info)
        case .nodeRetrying, .callerResumed, .generationReset, .nodeTornDown, .containerShutdown, .scopeOpened,
            .scopeClosed, .buildAdded, .inputSupplied:
            break
        }
    }

    private mutating func note(_ node: String) {
        if noted.insert(node).inserted { nodes.append(node) }
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
