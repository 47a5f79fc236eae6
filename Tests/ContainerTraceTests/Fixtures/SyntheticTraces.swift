import Container
import TestSupport

/// Traces that exercise every renderer: retries, failures, cancellation, resets and reloads,
/// and scope instances mixed with the app's events.
enum SyntheticTraces {
    /// The app graph of the synthetic traces: `configuration -> database -> session -> feed`.
    static func appGraph() throws -> ServiceGraph {
        try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("configuration")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("database"), dependsOn: ["configuration"]) { _ in 2 },
            ServiceSpec(ServiceKey<Int>("session"), dependsOn: ["database"]) { _ in 3 },
            ServiceSpec(ServiceKey<Int>("feed"), dependsOn: ["session"]) { _ in 4 },
        ])
    }

    /// The app graph plus the scoped services the mixed trace's instances build (`sceneRouter`
    /// needs `session`, `pushDetail` needs `database` and `pushPayload`), as a graph that knows
    /// every service would declare them.
    static func graphWithScopedServices() throws -> ServiceGraph {
        try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("configuration")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("database"), dependsOn: ["configuration"]) { _ in 2 },
            ServiceSpec(ServiceKey<Int>("session"), dependsOn: ["database"]) { _ in 3 },
            ServiceSpec(ServiceKey<Int>("feed"), dependsOn: ["session"]) { _ in 4 },
            ServiceSpec(ServiceKey<Int>("sceneRouter"), dependsOn: ["session"]) { _ in 5 },
            ServiceSpec(ServiceKey<Int>("pushPayload")) { _ in 6 },
            ServiceSpec(ServiceKey<Int>("pushDetail"), dependsOn: ["database", "pushPayload"]) { _ in 7 },
        ])
    }

    /// Attempt 1 retries `database`, fails `session` transiently and skips `feed`; attempt 2
    /// reuses what succeeded; a reload starts generation 2, whose build a reset cancels (one node
    /// while running, one before it started); its caller is superseded, another cancelled.
    static var retriesCancellationResets: [TraceEvent] {
        var script = TraceScript()
        script.add([.callerJoined(caller: "launch", state: .idle), .buildStarted])
        script.add(.callerJoined(caller: "scene", state: .running))
        script.add(.nodeStarted(node: "configuration"))
        script.add(.nodeSucceeded(node: "configuration", duration: .microseconds(90)))
        script.add(.nodeStarted(node: "database"))
        script.add(.nodeRetrying(node: "database", retry: 1, delay: .milliseconds(2)))
        script.add(.nodeSucceeded(node: "database", duration: .microseconds(2_190)), step: 2_200)
        script.add(.nodeStarted(node: "session"))
        script.add(.nodeFailed(node: "session", failure: .transient, error: "token \"refresh\" timed out\n(503)"))
        script.add(.nodeSkipped(node: "feed", because: ["session"]))
        script.add(.buildFailed(failure: .transient, roots: ["session"], exhausted: false))
        script.add(.callerResumed(caller: "launch", result: .failure))
        script.add(.callerResumed(caller: "scene", result: .failure))
        script.add([.callerJoined(caller: "launch", state: .idle), .buildStarted], a: 2)
        script.add(
            [
                .nodeReused(node: "configuration"), .nodeReused(node: "database"), .nodeStarted(node: "session"),
                .nodeSucceeded(node: "session", duration: .microseconds(95)), .nodeStarted(node: "feed"),
                .nodeSucceeded(node: "feed", duration: .microseconds(95)), .snapshotPublished(services: 4),
                .callerResumed(caller: "launch", result: .snapshot),
            ], a: 2)
        script.add(
            .generationReset(
                TraceEvent.GenerationChange(
                    from: 1, to: 2, invalidated: ["session", "feed"], reason: .reload, added: ["feed"], removed: [],
                    changed: ["session"])), g: 2)
        script.add(.nodeTornDown(node: "feed", error: nil))
        script.add(.nodeTornDown(node: "session", error: "close failed"))
        script.add([.callerJoined(caller: "logout", state: .idle), .buildStarted], g: 2)
        script.add(.callerJoined(caller: "push", state: .running), g: 2)
        script.add([.nodeReused(node: "configuration"), .nodeReused(node: "database")], g: 2)
        script.add(.nodeStarted(node: "session"), g: 2)
        script.add(.callerCancelled(caller: "push"), g: 2)
        script.add(.generationReset(TraceEvent.GenerationChange(from: 2, to: 3, invalidated: nil)), g: 3)
        script.add(.nodeCancelled(node: "session", phase: .whileRunning), g: 2)
        script.add(.nodeCancelled(node: "feed", phase: .beforeStart), g: 2)
        script.add(.buildCancelled, g: 2)
        script.add(.callerResumed(caller: "logout", result: .superseded), g: 2)
        script.add(.containerShutdown, g: 3)
        return script.events
    }

    /// The labels of the mixed trace's scope instances: two of `scene`, one of `push`.
    static let instances = ["scene#window-1", "scene#window-2", "push#notification-42"]

    /// The app builds while two windows and a push open their scope instances; `window-2`'s
    /// first build fails and its second succeeds; `window-1` is closed at the end, the others
    /// stay open.
    static var mixedScopes: [TraceEvent] {
        let (window1, window2, push) = (instances[0], instances[1], instances[2])
        var script = TraceScript()
        script.add([.callerJoined(caller: "launch", state: .idle), .buildStarted])
        script.add(.scopeOpened, scope: window1)
        script.add(.scopeOpened, scope: window2)
        script.add(.callerJoined(caller: "scene", state: .idle), scope: window1)
        script.add(.callerJoined(caller: "scene", state: .idle), scope: window2)
        script.add(.scopeOpened, scope: push)
        script.add(.callerJoined(caller: "push", state: .idle), scope: push)
        for node in ["configuration", "database", "session", "feed"] {
            script.add(.nodeStarted(node: node))
            script.add(.nodeSucceeded(node: node, duration: .microseconds(90)))
        }
        script.add([.snapshotPublished(services: 4), .callerResumed(caller: "launch", result: .snapshot)])
        script.add(.buildStarted, scope: window1)
        script.add(.buildStarted, scope: window2)
        script.add(.buildStarted, scope: push)
        script.add(.nodeStarted(node: "sceneRouter"), scope: window1)
        script.add(.nodeStarted(node: "sceneRouter"), scope: window2)
        script.add(.nodeStarted(node: "pushPayload"), scope: push)
        script.add(.nodeSucceeded(node: "sceneRouter", duration: .microseconds(150)), scope: window1)
        script.add(.nodeFailed(node: "sceneRouter", failure: .transient, error: "no window"), scope: window2)
        script.add(.nodeSucceeded(node: "pushPayload", duration: .microseconds(250)), scope: push)
        script.add(.nodeStarted(node: "pushDetail"), scope: push)
        script.add(.snapshotPublished(services: 1), scope: window1)
        script.add(.callerResumed(caller: "scene", result: .snapshot), scope: window1)
        script.add(.buildFailed(failure: .transient, roots: ["sceneRouter"], exhausted: false), scope: window2)
        script.add(.callerResumed(caller: "scene", result: .failure), scope: window2)
        script.add(.nodeSucceeded(node: "pushDetail", duration: .microseconds(150)), scope: push)
        script.add(.snapshotPublished(services: 2), scope: push)
        script.add(.callerResumed(caller: "push", result: .snapshot), scope: push)
        script.add([.callerJoined(caller: "scene", state: .idle), .buildStarted], a: 2, scope: window2)
        script.add(
            [
                .nodeStarted(node: "sceneRouter"), .nodeSucceeded(node: "sceneRouter", duration: .microseconds(90)),
                .snapshotPublished(services: 1), .callerResumed(caller: "scene", result: .snapshot),
            ], a: 2, scope: window2)
        script.add(.nodeTornDown(node: "sceneRouter", error: nil), scope: window1)
        script.add(.scopeClosed, scope: window1)
        return script.events
    }
}
