import Container

/// One build attempt read back from a trace: when it started and ended, how, and each node's part.
///
/// The renderers that draw scope instances (DOT and Mermaid clusters, gantt sections) have no
/// `BuildReport` for them, only the trace; this is the part of a report a trace can give.
struct TracedBuild {
    /// One node's part in the build.
    struct Node {
        let name: String
        /// When its provider started (`node.started`); `nil` when it never ran in this build.
        var started: Duration?
        /// When it reached its outcome.
        var ended: Duration?
        /// Its terminal event (`node.succeeded`, `.failed`, `.skipped`, `.cancelled`, `.reused`).
        var outcome: TraceEvent.Kind?
    }

    /// The scope instance built, `nil` for the app.
    let scope: String?
    /// The generation and attempt built.
    let build: BuildAttempt
    /// `build.started`.
    var started: Duration?
    /// The build's end event (`snapshot.published`, `build.failed` or `build.cancelled`), and when.
    var end: (time: Duration, kind: TraceEvent.Kind)?
    /// Every node with an event in the build, in the order of their first event.
    private(set) var nodes: [Node] = []
    /// Where each node is in ``nodes`` (a large graph would make a linear search quadratic).
    private var nodeIndex: [String: Int] = [:]

    /// `published`, `failed` or `cancelled`; `running` when the trace ends before the build does.
    var state: String {
        switch end?.kind {
        case .snapshotPublished: "published"
        case .buildFailed: "failed"
        case .buildCancelled: "cancelled"
        default: "running"
        }
    }

    /// The builds of `events`, in the order of their first event. Events that belong to no build
    /// (callers, resets, teardowns, shutdown, scope opened and closed) are left out.
    static func builds(in events: [TraceEvent]) -> [TracedBuild] {
        BuildKey.fold(
            events,
            including: { kind in
                switch kind {
                case .buildStarted, .buildCancelled, .buildFailed, .snapshotPublished, .nodeStarted, .nodeSucceeded,
                    .nodeFailed, .nodeSkipped, .nodeCancelled, .nodeReused, .nodeRetrying:
                    true
                default: false
                }
            },
            make: { TracedBuild(scope: $0.scope, build: $0.build) }, record: { $0.record($1) })
    }

    private mutating func record(_ event: TraceEvent) {
        switch event.kind {
        case .buildStarted:
            started = event.time
        case .snapshotPublished, .buildFailed, .buildCancelled:
            end = (event.time, event.kind)
        case .nodeStarted(let node, _, _, _):
            update(node) { if $0.started == nil { $0.started = event.time } }
        case .nodeCancelled(let node, let phase):
            update(node) {
                $0.outcome = event.kind
                if phase == .whileRunning { $0.ended = event.time }
            }
        case .nodeSucceeded(let node, _), .nodeFailed(let node, _, _, _):
            update(node) {
                $0.outcome = event.kind
                $0.ended = event.time
            }
        case .nodeSkipped(let node, _), .nodeReused(let node):
            update(node) { $0.outcome = event.kind }
        default:
            break
        }
    }

    private mutating func update(_ name: String, _ change: (inout Node) -> Void) {
        if let index = nodeIndex[name] {
            change(&nodes[index])
        } else {
            var node = Node(name: name)
            change(&node)
            nodeIndex[name] = nodes.count
            nodes.append(node)
        }
    }
}
