import Container

/// Reads one container's trace into Perfetto processes: the app and each scope instance.
///
/// Spans open at their start event and close at their end event: a build from `build.started`
/// to `snapshot.published`, `build.failed` or `build.cancelled` (a build of demand-driven
/// requests that starts another node after it published grows: its span reopens, and the
/// publish becomes an instant on the builds track); a node run from `node.started`
/// to its outcome; a caller's wait from `caller.joined` to `caller.resumed` or
/// `caller.cancelled`; a scope instance's life from `scope.opened` to `scope.closed`. Anything
/// still open when the trace ends closes at its last event, marked `unfinished`.
struct PerfettoLayout {
    private struct NodeRun: Hashable {
        let build: BuildAttempt
        let node: String
    }

    private struct Wait {
        let start: Duration
        let state: TraceEvent.CallerState
        let build: BuildAttempt
        var request: TraceEvent.Request? = nil
    }

    /// The open spans of one process.
    private struct Open {
        var builds: [BuildAttempt: Duration] = [:]
        /// When each finished build ended: a node left open closes there, inside its build.
        var ended: [BuildAttempt: Duration] = [:]
        /// Builds whose span closed at a `snapshot.published`: the span's mark and its start.
        var published: [BuildAttempt: (mark: Int, start: Duration)] = [:]
        var nodes: [NodeRun: Duration] = [:]
        var callers: [String: [Wait]] = [:]
        var scope: Duration?
    }

    private(set) var processes: [PerfettoProcess] = []
    private var index: [String?: Int] = [:]
    private var open: [String?: Open] = [:]
    private let name: String
    private let firstPid: Int

    /// Lays out `events` as processes numbered from `firstPid`, named after `name` (the app's
    /// process) and `name · scope label` (each scope instance's).
    init(_ events: [TraceEvent], name: String, firstPid: Int) {
        self.name = name
        self.firstPid = firstPid
        for event in events { record(event) }
        close(at: events.last?.time ?? .zero)
    }

    private mutating func process(_ scope: String?) -> Int {
        if let existing = index[scope] { return existing }
        let label = scope.map { "\(name) · scope \($0)" } ?? name
        processes.append(PerfettoProcess(pid: firstPid + processes.count, name: label))
        index[scope] = processes.count - 1
        open[scope] = Open()
        return processes.count - 1
    }

    private mutating func add(
        _ scope: String?, _ track: PerfettoProcess.Track, _ name: String, _ category: String, from start: Duration,
        to end: Duration?, colour: String? = nil, _ args: ChromeTraceEvent.Args
    ) {
        let at = process(scope)
        processes[at].add(
            .init(track: track, name: name, category: category, start: start, end: end, colour: colour, args: args))
    }

    private mutating func record(_ event: TraceEvent) {
        let scope = event.scope
        _ = process(scope)
        let build: (name: String, value: ChromeTraceEvent.Value) = ("build", .string(event.build.description))
        switch event.kind {
        case .buildStarted:
            open[scope]?.builds[event.build] = event.time
        case .snapshotPublished(let services):
            let start = open[scope]?.builds[event.build] ?? event.time
            let mark = processes[process(scope)].markCount
            endBuild(event, "published", colour: "good", [("services", .integer(services))])
            open[scope]?.published[event.build] = (mark, start)
        case .buildFailed(let failure, let roots, let exhausted):
            var args: ChromeTraceEvent.Args = [
                ("failure", .string(failure.rawValue)), ("roots", .strings(roots)),
            ]
            if exhausted { args.append(("exhausted", .bool(true))) }
            reopenGrowing(event)
            endBuild(event, "failed", colour: "terrible", args)
        case .buildCancelled:
            reopenGrowing(event)
            endBuild(event, "cancelled", colour: "grey", [])
        case .nodeStarted(let node, _, _, _):
            reopenGrowing(event)
            open[scope]?.nodes[NodeRun(build: event.build, node: node)] = event.time
        case .nodeSucceeded(let node, let duration):
            endNode(
                event, node, "succeeded", colour: "good",
                [("durationMs", .number(DurationFormat.milliseconds(duration)))])
        case .nodeFailed(let node, let failure, let error, let optional):
            var args: ChromeTraceEvent.Args = [("failure", .string(failure.rawValue)), ("error", .string(error))]
            if optional { args.append(("optional", .bool(true))) }
            endNode(event, node, "failed", colour: optional ? "bad" : "terrible", args)
        case .nodeCancelled(let node, let phase) where phase == .whileRunning:
            endNode(event, node, "cancelled", colour: "grey", [("phase", .string(phase.rawValue))])
        case .nodeCancelled(let node, let phase):
            instant(
                event, .node(node), "cancelled before start", node,
                [("outcome", .string("cancelled")), ("phase", .string(phase.rawValue))])
        case .nodeSkipped(let node, let because):
            instant(
                event, .node(node), "skipped", node, [("outcome", .string("skipped")), ("because", .strings(because))])
        case .nodeReused(let node):
            instant(event, .node(node), "reused", node, [("outcome", .string("reused"))])
        case .nodeRetrying(let node, let retry, let delay):
            instant(
                event, .node(node), "retry \(retry)", node,
                [("retry", .integer(retry)), ("delayMs", .number(DurationFormat.milliseconds(delay)))])
        case .callerJoined(let caller, let state, let request):
            open[scope]?.callers[caller, default: []].append(
                Wait(start: event.time, state: state, build: event.build, request: request))
        case .buildAdded(let nodes, let caller):
            add(
                scope, .builds, "added \(nodes.count) for \(caller)", "build", from: event.time, to: nil,
                [("nodes", .strings(nodes)), ("caller", .string(caller)), build])
        case .inputSupplied(let node, let replaced):
            add(
                scope, .lifecycle, "supplied \(node)", "lifecycle", from: event.time, to: nil,
                [("node", .string(node)), ("replaced", .bool(replaced)), build])
        case .callerResumed(let caller, let result):
            endWait(event, caller, result.rawValue)
        case .callerCancelled(let caller):
            endWait(event, caller, "cancelled")
        case .generationReset(let change):
            var args: ChromeTraceEvent.Args = [
                ("from", .integer(change.from)), ("to", .integer(change.to)),
                ("reason", .string(change.reason.description)),
            ]
            if let invalidated = change.invalidated { args.append(("invalidated", .strings(invalidated))) }
            if change.reason == .reload {
                args += [
                    ("added", .strings(change.added)), ("removed", .strings(change.removed)),
                    ("changed", .strings(change.changed)),
                ]
            }
            add(
                scope, .lifecycle, "\(change.reason) g\(change.from) → g\(change.to)", "lifecycle", from: event.time,
                to: nil, args)
        case .nodeTornDown(let node, let error):
            var args: ChromeTraceEvent.Args = [("node", .string(node)), build]
            if let error { args.append(("error", .string(error))) }
            add(
                scope, .lifecycle, "tornDown \(node)", "lifecycle", from: event.time, to: nil,
                colour: error == nil ? nil : "terrible", args)
        case .containerShutdown:
            add(scope, .lifecycle, "shutdown", "lifecycle", from: event.time, to: nil, [build])
        case .scopeOpened:
            open[scope]?.scope = event.time
        case .scopeClosed:
            let start = open[scope]?.scope ?? event.time
            open[scope]?.scope = nil
            add(
                scope, .lifecycle, "scope \(scope ?? "")", "scope", from: start, to: event.time,
                [("closed", .bool(true))])
        }
    }

    /// A node of a build that published starts or ends, or the build fails or is cancelled
    /// after it: the build grew (a request that joined it got its part first); its span
    /// reopens, and the snapshot it published becomes an instant. A publication after the
    /// build with nothing of it in between (a request its values answered) reopens nothing.
    private mutating func reopenGrowing(_ event: TraceEvent) {
        guard let (mark, start) = open[event.scope]?.published.removeValue(forKey: event.build) else { return }
        let at = process(event.scope)
        let closed = processes[at].marks[mark]
        processes[at].replace(
            at: mark,
            with: .init(
                track: .builds, name: "published", category: "build", start: closed.end ?? closed.start, end: nil,
                colour: "good", args: closed.args))
        open[event.scope]?.builds[event.build] = start
        open[event.scope]?.ended[event.build] = nil
    }

    private mutating func endBuild(
        _ event: TraceEvent, _ result: String, colour: String?, _ args: ChromeTraceEvent.Args
    ) {
        // A build that ends without a `build.started` in the trace (a trace cut at its start) is drawn from its end.
        let start = open[event.scope]?.builds.removeValue(forKey: event.build) ?? event.time
        open[event.scope]?.ended[event.build] = event.time
        add(
            event.scope, .builds, "build \(event.build)", "build", from: start, to: event.time, colour: colour,
            Self.buildArgs(event.build, result) + args)
    }

    private mutating func endNode(
        _ event: TraceEvent, _ node: String, _ outcome: String, colour: String?,
        _ args: ChromeTraceEvent.Args
    ) {
        reopenGrowing(event)
        let start = open[event.scope]?.nodes.removeValue(forKey: NodeRun(build: event.build, node: node)) ?? event.time
        add(
            event.scope, .node(node), node, "node", from: start, to: event.time, colour: colour,
            [("node", .string(node)), ("build", .string(event.build.description)), ("outcome", .string(outcome))] + args
        )
    }

    private mutating func instant(
        _ event: TraceEvent, _ track: PerfettoProcess.Track, _ name: String, _ node: String,
        _ args: ChromeTraceEvent.Args
    ) {
        add(
            event.scope, track, name, "node", from: event.time, to: nil,
            [("node", .string(node)), ("build", .string(event.build.description))] + args)
    }

    private mutating func endWait(_ event: TraceEvent, _ caller: String, _ result: String) {
        // Several waits of one caller name at once: the earliest ends first.
        var waits = open[event.scope]?.callers[caller] ?? []
        let wait = waits.isEmpty ? Wait(start: event.time, state: .running, build: event.build) : waits.removeFirst()
        open[event.scope]?.callers[caller] = waits
        let colour = result == "snapshot" ? "good" : result == "failure" ? "terrible" : "grey"
        var args: ChromeTraceEvent.Args = [
            ("caller", .string(caller)), ("found", .string(wait.state.rawValue)),
            ("result", .string(result)), ("build", .string(wait.build.description)),
        ]
        switch wait.request {
        case nil: break
        case .eager: args.append(("request", .string("eager")))
        case .deferred: args.append(("request", .string("deferred")))
        case .services(let names): args += [("request", .string("services")), ("needs", .strings(names))]
        }
        add(event.scope, .caller(caller), caller, "caller", from: wait.start, to: event.time, colour: colour, args)
    }

    /// Closes every span still open at `end`, the trace's last event (a node of a build that
    /// ended, at its build's end), in a fixed order so the output does not depend on hashing.
    private mutating func close(at end: Duration) {
        let scopes = index.sorted { $0.value < $1.value }.map(\.key)
        for scope in scopes {
            guard let spans = open[scope] else { continue }
            for (build, start) in spans.builds.sorted(by: { $0.key < $1.key }) {
                add(
                    scope, .builds, "build \(build)", "build", from: start, to: end, colour: "yellow",
                    Self.buildArgs(build, "unfinished"))
            }
            let nodes = spans.nodes.sorted {
                ($0.value, $0.key.build, $0.key.node) < ($1.value, $1.key.build, $1.key.node)
            }
            for (run, start) in nodes {
                add(
                    scope, .node(run.node), run.node, "node", from: start, to: spans.ended[run.build] ?? end,
                    colour: "yellow",
                    [
                        ("node", .string(run.node)), ("build", .string(run.build.description)),
                        ("outcome", .string("unfinished")),
                    ])
            }
            for (caller, waits) in spans.callers.sorted(by: { $0.key < $1.key }) {
                for wait in waits {
                    add(
                        scope, .caller(caller), caller, "caller", from: wait.start, to: end, colour: "yellow",
                        [
                            ("caller", .string(caller)), ("found", .string(wait.state.rawValue)),
                            ("result", .string("unfinished")), ("build", .string(wait.build.description)),
                        ])
                }
            }
            if let start = spans.scope {
                add(
                    scope, .lifecycle, "scope \(scope ?? "")", "scope", from: start, to: end, [("closed", .bool(false))]
                )
            }
        }
        open = [:]
    }

    private static func buildArgs(_ build: BuildAttempt, _ result: String) -> [(
        name: String, value: ChromeTraceEvent.Value
    )] {
        [("generation", .integer(build.generation)), ("attempt", .integer(build.attempt)), ("result", .string(result))]
    }
}
