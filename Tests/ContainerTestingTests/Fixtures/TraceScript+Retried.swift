import Container
import TestSupport

/// The hand-written traces of the kit's tests.
extension TraceScript {
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
        script.add(.callerJoined(caller: "launch", state: .idle), g: 1, a: 2)
        script.add(.buildStarted, g: 1, a: 2)
        script.add(.nodeStarted(node: "database", overridden: true), g: 1, a: 2)
        script.add(.nodeSucceeded(node: "database", duration: .milliseconds(1)), g: 1, a: 2)
        script.add(.nodeStarted(node: "session"), g: 1, a: 2)
        script.add(.nodeSucceeded(node: "session", duration: .milliseconds(1)), g: 1, a: 2)
        script.add(.snapshotPublished(services: 2), g: 1, a: 2)
        script.add(.callerResumed(caller: "launch", result: .snapshot), g: 1, a: 2)
        script.add(.containerShutdown, g: 1, a: 2)
        script.add(.nodeTornDown(node: "session", error: nil), g: 1, a: 2)
        script.add(.nodeTornDown(node: "database", error: nil), g: 1, a: 2)
        return script.events
    }
}
