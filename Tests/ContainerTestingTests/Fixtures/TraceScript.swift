import Container

/// Hand-written traces: each line an event of build `g a` (generation, attempt), at increasing times.
struct TraceScript {
    private(set) var events: [TraceEvent] = []

    /// Appends `kind` in build `generation`/`attempt` (and scope instance `scope`), one millisecond after the last.
    mutating func add(_ kind: TraceEvent.Kind, _ generation: Int = 1, _ attempt: Int = 1, scope: String? = nil) {
        events.append(
            TraceEvent(
                time: .milliseconds(events.count), build: BuildAttempt(generation: generation, attempt: attempt),
                scope: scope, kind: kind))
    }

    /// `database` fails transiently in g1 a1, so `session` is skipped; attempt 2 builds both and
    /// publishes (`database` is an override in both); `launch` asks twice; the shutdown tears both down.
    static var retried: [TraceEvent] {
        var script = TraceScript()
        script.add(.callerJoined(caller: "launch", state: .idle))
        script.add(.buildStarted)
        script.add(.nodeStarted(node: "database", overridden: true))
        script.add(.nodeFailed(node: "database", failure: .transient, error: "busy"))
        script.add(.nodeSkipped(node: "session", because: ["database"]))
        script.add(.buildFailed(failure: .transient, roots: ["database"], exhausted: false))
        script.add(.callerResumed(caller: "launch", result: .failure))
        script.add(.callerJoined(caller: "launch", state: .idle), 1, 2)
        script.add(.buildStarted, 1, 2)
        script.add(.nodeStarted(node: "database", overridden: true), 1, 2)
        script.add(.nodeSucceeded(node: "database", duration: .milliseconds(1)), 1, 2)
        script.add(.nodeStarted(node: "session"), 1, 2)
        script.add(.nodeSucceeded(node: "session", duration: .milliseconds(1)), 1, 2)
        script.add(.snapshotPublished(services: 2), 1, 2)
        script.add(.callerResumed(caller: "launch", result: .snapshot), 1, 2)
        script.add(.containerShutdown, 1, 2)
        script.add(.nodeTornDown(node: "session", error: nil), 1, 2)
        script.add(.nodeTornDown(node: "database", error: nil), 1, 2)
        return script.events
    }
}
