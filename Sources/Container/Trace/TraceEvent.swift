/// One transition of the container: a build, a node, a caller, a reset or a teardown.
///
/// Events carry a monotonic timestamp (since the container was created), the build attempt
/// (generation and attempt) they belong to and, for a scope instance's events, the instance's
/// label. Their JSON Lines form is documented in `docs/trace-format.md` (version 1), the Trace format
/// article of the `ContainerTrace` documentation.
public struct TraceEvent: Sendable, Hashable, CustomStringConvertible {
    /// Time since the container was created (monotonic clock).
    public let time: Duration
    /// The generation and attempt the event belongs to.
    public let build: BuildAttempt
    /// The scope instance the event belongs to, e.g. `"push#notification-42"` (the scope's name
    /// and the instance's id); `nil` for the app's own events (see <doc:Scopes>).
    public let scope: String?
    /// What happened.
    public let kind: Kind

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - time: time since the container was created.
    ///   - build: the generation and attempt the event belongs to.
    ///   - scope: the scope instance's label (`"scene#window-1"`), or `nil` for an app event.
    ///   - kind: what happened.
    public init(time: Duration, build: BuildAttempt, scope: String? = nil, kind: Kind) {
        self.time = time
        self.build = build
        self.scope = scope
        self.kind = kind
    }

    /// The generation the event belongs to (``build``'s).
    public var generation: Int { build.generation }

    /// The build attempt within the generation (``build``'s).
    public var attempt: Int { build.attempt }

    /// What happened; the JSON Lines `event` names are given per case.
    public enum Kind: Sendable, Hashable {
        /// `build.started`
        case buildStarted
        /// `node.started`: `overridden` when the service was replaced by a ``ServiceGraph/Override``
        /// (`"override": true` in JSON Lines); `executor`, where the provider runs (the main actor
        /// or the build's threads), and `priority`, the priority it runs at (`nil` when not known,
        /// as in traces made before they were recorded, or none: a synchronous caller's thread).
        case nodeStarted(
            node: String, overridden: Bool = false, executor: BuildReport.Executor? = nil,
            priority: ServicePriority? = nil)
        /// `node.succeeded`
        case nodeSucceeded(node: String, duration: Duration)
        /// `node.failed`: `optional` when the service is optional, so its failure fails no request
        /// (`"optional": true` in JSON Lines).
        case nodeFailed(node: String, failure: FailureKind, error: String, optional: Bool = false)
        /// `node.retrying`: retry number `retry` (1, 2, ...) of the node starts after `delay`.
        case nodeRetrying(node: String, retry: Int, delay: Duration)
        /// `node.skipped`
        case nodeSkipped(node: String, because: [String])
        /// `node.cancelled`
        case nodeCancelled(node: String, phase: NodeOutcome.CancellationPhase)
        /// `node.reused`
        case nodeReused(node: String)
        /// `snapshot.published`
        case snapshotPublished(services: Int)
        /// `build.failed`: `exhausted` when it used the generation's last allowed attempt.
        case buildFailed(failure: FailureKind, roots: [String], exhausted: Bool)
        /// `build.cancelled`: a reset or shutdown stopped the build; it will never publish.
        case buildCancelled
        /// `build.added`: the build took on `nodes` (in the order they may start) because the
        /// request of `caller` needs them and the generation lacks them (see <doc:DemandDrivenStartUp>).
        case buildAdded(nodes: [String], caller: String)
        /// `input.supplied`: the app supplied a value of the input `node`; `replaced` when it had
        /// one (the value itself is never traced).
        case inputSupplied(node: String, replaced: Bool)
        /// `caller.joined`: a caller asked for `request` (`nil` when not known, as in traces made
        /// before it was recorded) and found the container in `state`.
        case callerJoined(caller: String, state: TraceEvent.CallerState, request: TraceEvent.Request? = nil)
        /// `caller.resumed`
        case callerResumed(caller: String, result: TraceEvent.CallerResult)
        /// `caller.cancelled`
        case callerCancelled(caller: String)
        /// `generation.reset`: a reset or a reload started a new generation.
        case generationReset(TraceEvent.GenerationChange)
        /// `node.tornDown`: `error` is set when the teardown failed.
        case nodeTornDown(node: String, error: String?)
        /// `container.shutdown`
        case containerShutdown
        /// `scope.opened`: the scope instance named by the event's ``TraceEvent/scope`` was opened.
        case scopeOpened
        /// `scope.closed`: the scope instance named by the event's ``TraceEvent/scope`` was closed.
        case scopeClosed

        /// The event's name in the JSON Lines format, e.g. `node.started`.
        public var name: String {
            switch self {
            case .buildStarted: "build.started"
            case .nodeStarted: "node.started"
            case .nodeSucceeded: "node.succeeded"
            case .nodeFailed: "node.failed"
            case .nodeRetrying: "node.retrying"
            case .nodeSkipped: "node.skipped"
            case .nodeCancelled: "node.cancelled"
            case .nodeReused: "node.reused"
            case .snapshotPublished: "snapshot.published"
            case .buildFailed: "build.failed"
            case .buildCancelled: "build.cancelled"
            case .buildAdded: "build.added"
            case .inputSupplied: "input.supplied"
            case .callerJoined: "caller.joined"
            case .callerResumed: "caller.resumed"
            case .callerCancelled: "caller.cancelled"
            case .generationReset: "generation.reset"
            case .nodeTornDown: "node.tornDown"
            case .containerShutdown: "container.shutdown"
            case .scopeOpened: "scope.opened"
            case .scopeClosed: "scope.closed"
            }
        }

        /// The node the event is about, if any.
        public var node: String? {
            switch self {
            case .nodeStarted(let node, _, _, _), .nodeSucceeded(let node, _), .nodeFailed(let node, _, _, _),
                .nodeRetrying(let node, _, _), .nodeSkipped(let node, _), .nodeCancelled(let node, _),
                .nodeReused(let node), .nodeTornDown(let node, _), .inputSupplied(let node, _):
                node
            default: nil
            }
        }

        /// The caller the event is about, if any.
        public var caller: String? {
            switch self {
            case .callerJoined(let caller, _, _), .callerResumed(let caller, _), .callerCancelled(let caller): caller
            default: nil
            }
        }

        /// Whether the event belongs to a node's run in a build (not a teardown or an input).
        public var isBuildNodeEvent: Bool {
            switch self {
            case .nodeStarted, .nodeSucceeded, .nodeFailed, .nodeRetrying, .nodeSkipped, .nodeCancelled, .nodeReused:
                true
            default: false
            }
        }

        /// Whether this is a node's terminal event for its attempt (succeeded, reused, failed, skipped, cancelled).
        public var isTerminalNodeEvent: Bool {
            switch self {
            case .nodeSucceeded, .nodeFailed, .nodeSkipped, .nodeCancelled, .nodeReused: true
            default: false
            }
        }
    }

    /// `[1.25ms g1 a1] node.started`, with the scope after the build when there is one.
    public var description: String {
        "[\(time.formattedMilliseconds) \(build)\(scope.map { " " + $0 } ?? "")] \(kind.name)"
    }
}

extension TraceEvent {
    /// What a `generation.reset` event says changed.
    public struct GenerationChange: Sendable, Hashable {
        /// Why the generation changed.
        public struct Reason: Hashable, Sendable, CustomStringConvertible {
            private enum Base: String, Hashable, Sendable { case reset, reload, shutdown }
            private let base: Base
            private init(_ base: Base) { self.base = base }

            /// ``ServiceContainer/reset(invalidating:)``.
            public static let reset = Reason(.reset)
            /// ``ServiceContainer/reload(_:)``: a new version of the graph.
            public static let reload = Reason(.reload)
            /// ``ServiceContainer/shutdown(deadline:)`` or ``ServiceContainer/shutdown()``.
            public static let shutdown = Reason(.shutdown)

            public var description: String { base.rawValue }
        }

        /// The generation retired.
        public let from: Int
        /// The new generation.
        public let to: Int
        /// The services invalidated (rebuilt in the new generation); `nil` when all were.
        public let invalidated: [String]?
        /// A reset or a reload.
        public let reason: Reason
        /// For a reload: services the new graph adds, removes, and changes (provider, options,
        /// dependencies, lifetime, timeout, retry or failure).
        public let added: [String]
        /// See ``added``.
        public let removed: [String]
        /// See ``added``.
        public let changed: [String]

        /// Creates a change.
        public init(
            from: Int, to: Int, invalidated: [String]?, reason: Reason = .reset, added: [String] = [],
            removed: [String] = [], changed: [String] = []
        ) {
            self.from = from
            self.to = to
            self.invalidated = invalidated
            self.reason = reason
            self.added = added
            self.removed = removed
            self.changed = changed
        }
    }
}

extension TraceEvent {
    /// The state a caller found the container in when it called `start()`.
    public enum CallerState: String, Sendable, Hashable {
        /// Nothing was running: this caller started the build.
        case idle
        /// A build was running (or waiting for a reset's teardown): the caller joined it.
        case running
        /// A snapshot was ready: returned at once.
        case ready
        /// The container had failed permanently (or used every attempt of its budget): the
        /// failure was returned at once.
        case failed
        /// The last attempt failed and the next is not allowed yet (``BuildPolicy/retryAfter``):
        /// the last failure was returned at once, without a build.
        case waiting
        /// The container was shut down.
        case shutDown
    }
}

extension TraceEvent {
    /// What a caller asked for (`caller.joined`'s `request`).
    public enum Request: Sendable, Hashable {
        /// The eager services: `start()`.
        case eager
        /// The eager and the deferred services: `startDeferred()`.
        case deferred
        /// These services and what they need: `start(needs:)`, an entry point's needs, `service(_:)`,
        /// or a scope instance's build asking the app for its app services.
        case services([String])
    }
}

extension TraceEvent {
    /// What a caller received.
    public enum CallerResult: String, Sendable, Hashable {
        /// The snapshot.
        case snapshot
        /// The build's failure (or the container's shutdown).
        case failure
        /// A reset superseded the generation the caller was waiting for.
        case superseded
    }
}
