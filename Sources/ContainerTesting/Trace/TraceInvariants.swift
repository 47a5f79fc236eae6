public import Container

/// The rules every trace of every run follows, whatever the graph (Container's CoordinatorRules and
/// ContainerTrace's TraceFormat articles): the demo
/// checks them after each run, and a test can too.
///
/// ```swift
/// try recorder.events.expect(TraceInvariants.expectations(for: container.graph))
/// ```
///
/// Builds are told apart by their scope instance, generation and attempt; a scope instance's
/// build is expected to end the scope's own services (the app services it uses are never built there).
public enum TraceInvariants {
    /// Checks `events` of a container built from `graph`: one result per rule.
    /// A scope instance closed and opened again under the same id starts from generation 1
    /// again: its events after each later `scope.opened` are told apart as `label (opened 2)`.
    public static func check(_ events: [TraceEvent], graph: ServiceGraph) -> [CheckResult] {
        separatingReopenedInstances(events).check(expectations(for: graph))
    }

    /// `events`, the scope of each reopened instance's events named by its opening.
    static func separatingReopenedInstances(_ events: [TraceEvent]) -> [TraceEvent] {
        var openings: [String: Int] = [:]
        var renamed = false
        let separated = events.map { event -> TraceEvent in
            guard let scope = event.scope else { return event }
            if event.kind == .scopeOpened { openings[scope, default: 0] += 1 }
            guard let opening = openings[scope], opening > 1 else { return event }
            renamed = true
            return TraceEvent(
                time: event.time, build: event.build, scope: "\(scope) (opened \(opening))", kind: event.kind)
        }
        return renamed ? separated : events
    }

    /// Every rule, as expectations on a trace of a container built from `graph`.
    public static func expectations(for graph: ServiceGraph) -> [TraceExpectation] {
        [
            oneBuildPerAttempt, oneOutcomePerNode(graph), dependenciesFirst(graph), nodesAddedBeforeTheyRun,
            everyCallerAnswered, readyAfterItsSnapshot, .noSnapshotAfterReset, timeNeverGoesBack,
            mainActorNodesOneAtATime,
        ]
    }

    /// Rule 1 (one build, shared): at most one `build.started` per attempt, however many callers.
    public static var oneBuildPerAttempt: TraceExpectation {
        TraceExpectation("at most one build per attempt, however many callers") { events in
            var builds: [BuildKey: Int] = [:]
            for event in events where event.kind == .buildStarted { builds[BuildKey(event), default: 0] += 1 }
            let repeated = builds.filter { $0.value > 1 }.keys.map(\.description).sorted()
            return repeated.isEmpty ? nil : "more than one build.started in " + repeated.joined(separator: ", ")
        }
    }

    /// Inside one build: every node the build is for ends in exactly one outcome (succeeded,
    /// reused, failed, skipped or cancelled), and no node event lies outside a started build.
    /// In a graph that declares start policies, optional services or inputs, a build is for the
    /// nodes its requests need: those with an event in it.
    public static func oneOutcomePerNode(_ graph: ServiceGraph) -> TraceExpectation {
        let demandDriven =
            graph.declaresStartPolicies || !graph.inputNames.isEmpty
            || graph.serviceNames.contains { graph.isOptional($0) == true }
        return TraceExpectation("every node ends in exactly one outcome per build") { events in
            let built = Set(events.filter { $0.kind == .buildStarted }.map(BuildKey.init))
            var outcomes: [BuildKey: [String: Int]] = [:]
            var problems: [String] = []
            for event in events {
                guard let node = event.kind.node, event.kind.isBuildNodeEvent else { continue }
                let build = BuildKey(event)
                if !built.contains(build) {
                    problems.append("\(event.kind.name) of \(node) without a build in \(build)")
                }
                if event.kind.isTerminalNodeEvent { outcomes[build, default: [:]][node, default: 0] += 1 }
            }
            for build in built.sorted(by: { $0.description < $1.description }) {
                // A build superseded by a reset still ends every node before it reports `build.cancelled`.
                let counts = outcomes[build] ?? [:]
                let scope = build.scope.map { String($0.prefix { $0 != "#" }) }
                for name in graph.serviceNames
                where graph.lifetime(of: name)?.scope == scope
                    && (!demandDriven || counts[name] != nil)
                {
                    if counts[name, default: 0] != 1 {
                        problems.append("\(name) has \(counts[name, default: 0]) outcomes in \(build)")
                    }
                }
            }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }

    /// Inside one build: a node starts only after each of its dependencies succeeded or was reused in the
    /// same build (in a scope instance's build, the services of the app and of the scopes it is
    /// nested in come with the instance); an optional
    /// dependency may instead have ended without a value.
    public static func dependenciesFirst(_ graph: ServiceGraph) -> TraceExpectation {
        TraceExpectation("a node starts only after all its dependencies have values") { events in
            var ready: [BuildKey: Set<String>] = [:]
            var problems: [String] = []
            for event in events {
                switch event.kind {
                case .nodeSucceeded(let node, _), .nodeReused(let node):
                    ready[BuildKey(event), default: []].insert(node)
                case .nodeStarted:
                    let node = event.kind.node ?? ""
                    let have = ready[BuildKey(event)] ?? []
                    // The instance's scope: the last link of its label (`account#ada/scene#w1`: scene).
                    let scope = event.scope.map {
                        String($0.split(separator: "/").last?.split(separator: "#").first ?? "")
                    }
                    let missing = (graph.dependencies(of: node) ?? []).filter { dependency in
                        !have.contains(dependency) && !(scope != nil && graph.lifetime(of: dependency)?.scope != scope)
                            && graph.isOptional(dependency) != true
                    }
                    if !missing.isEmpty {
                        problems.append(
                            "\(node) started before \(missing.joined(separator: ", ")) in \(BuildKey(event))")
                    }
                default:
                    break
                }
            }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }

    /// Inside one build that writes `build.added` (every traced build does): each node is added
    /// at most once, and every node event other than `node.reused` is of a node added before it;
    /// every node added ends in an outcome.
    public static var nodesAddedBeforeTheyRun: TraceExpectation {
        TraceExpectation("a build runs exactly the nodes it added, each added once") { events in
            var added: [BuildKey: Set<String>] = [:]
            var ended: [BuildKey: Set<String>] = [:]
            var problems: [String] = []
            for event in events {
                let build = BuildKey(event)
                if case .buildAdded(let nodes, let caller) = event.kind {
                    for node in nodes where added[build, default: []].insert(node).inserted == false {
                        problems.append("\(node) added twice in \(build) (again for \(caller))")
                    }
                    continue
                }
                guard event.kind.isBuildNodeEvent, let node = event.kind.node, event.kind.name != "node.reused",
                    let members = added[build]
                else { continue }
                if !members.contains(node) { problems.append("\(event.kind.name) of \(node) never added to \(build)") }
                if event.kind.isTerminalNodeEvent { ended[build, default: []].insert(node) }
            }
            for (build, members) in added.sorted(by: { $0.key.description < $1.key.description }) {
                let open = members.subtracting(ended[build] ?? []).sorted()
                if !open.isEmpty {
                    problems.append("added but never ended in \(build): \(open.joined(separator: ", "))")
                }
            }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }

    /// Rule 6 (exactly once): every caller that asked is answered exactly once (resumed or cancelled), after it asked.
    public static var everyCallerAnswered: TraceExpectation {
        TraceExpectation("every caller is answered exactly once") { events in
            var open: [String: Int] = [:]
            var problems: [String] = []
            for event in events {
                guard let caller = event.kind.caller else { continue }
                let key = event.scope.map { "\(caller) in \($0)" } ?? caller
                if event.kind.name == "caller.joined" {
                    open[key, default: 0] += 1
                } else {
                    open[key, default: 0] -= 1
                    if open[key, default: 0] < 0 { problems.append("\(key) answered more often than it asked") }
                }
            }
            let unanswered = open.filter { $0.value > 0 }.keys.sorted()
            if !unanswered.isEmpty { problems.append("never answered: " + unanswered.joined(separator: ", ")) }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }

    /// A caller that found the container `ready` comes after the `snapshot.published` it
    /// received: one of its generation, by the same coordinator (the app or a scope instance).
    public static var readyAfterItsSnapshot: TraceExpectation {
        TraceExpectation("a caller that finds the container ready comes after its snapshot") { events in
            var published = Set<String>()
            var problems: [String] = []
            for event in events {
                let generation = "g\(event.generation)" + (event.scope.map { " \($0)" } ?? "")
                switch event.kind {
                case .snapshotPublished: published.insert(generation)
                case .callerJoined(let caller, .ready, _) where !published.contains(generation):
                    problems.append("\(caller) found \(generation) ready before it published a snapshot")
                default: break
                }
            }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }

    /// Inside one build: the main-actor nodes (`"executor": "main"`) run one after another, never
    /// two at once: each starts once the one before has ended (Container's "Launch tiers and the
    /// main actor" article).
    public static var mainActorNodesOneAtATime: TraceExpectation {
        TraceExpectation("a build's main-actor nodes run one at a time") { events in
            var running: [BuildKey: String] = [:]
            var problems: [String] = []
            for event in events {
                let build = BuildKey(event)
                switch event.kind {
                case .nodeStarted(let node, _, .main?, _):
                    if let other = running[build] { problems.append("\(node) started while \(other) ran in \(build)") }
                    running[build] = node
                case .nodeSucceeded(let node, _), .nodeFailed(let node, _, _, _),
                    .nodeCancelled(let node, .whileRunning):
                    if running[build] == node { running[build] = nil }
                default:
                    break
                }
            }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }

    /// The trace format: events come in the order of their timestamps.
    public static var timeNeverGoesBack: TraceExpectation {
        TraceExpectation("event times never go back") { events in
            for (earlier, later) in zip(events, events.dropFirst()) where later.time < earlier.time {
                return "\(later) comes after \(earlier)"
            }
            return nil
        }
    }
}

/// One build: its scope instance (`nil` for the app), generation and attempt.
struct BuildKey: Hashable, CustomStringConvertible {
    let scope: String?
    let build: BuildAttempt

    init(_ event: TraceEvent) {
        scope = event.scope
        build = event.build
    }

    /// `g1 a2`, or `g1 a2 push#7` for a scope instance.
    var description: String { build.description + (scope.map { " \($0)" } ?? "") }
}
