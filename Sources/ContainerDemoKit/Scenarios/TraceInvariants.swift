import Container

/// The rules every trace of every run must follow, whatever the graph (DESIGN §2, §3, §6).
///
/// The demo checks them after each run, so a config run also tests the runtime.
enum TraceInvariants {
    /// Checks `events` of a container built from `graph`.
    static func check(_ events: [TraceEvent], graph: ServiceGraph) -> [StoryCheck] {
        [
            oneBuildPerAttempt(events),
            oneOutcomePerNode(events, graph: graph),
            dependenciesFirst(events, graph: graph),
            everyCallerAnswered(events),
        ]
    }

    /// Rule §2.1: at most one `build.started` per generation and attempt, however many callers.
    static func oneBuildPerAttempt(_ events: [TraceEvent]) -> StoryCheck {
        var builds: [BuildAttempt: Int] = [:]
        for event in events where event.kind == .buildStarted { builds[event.build, default: 0] += 1 }
        let repeated = builds.filter { $0.value > 1 }.keys.sorted()
        return StoryCheck(
            "at most one build per attempt, however many callers", repeated.isEmpty,
            detail: "more than one build.started in " + repeated.map(\.description).joined(separator: ", "))
    }

    /// Rule §3.3: in every build, every node ends in exactly one outcome.
    static func oneOutcomePerNode(_ events: [TraceEvent], graph: ServiceGraph) -> StoryCheck {
        let built = Set(events.filter { $0.kind == .buildStarted }.map(\.build))
        var outcomes: [BuildAttempt: [String: Int]] = [:]
        for event in events where event.kind.isTerminalNodeEvent {
            outcomes[event.build, default: [:]][event.kind.node ?? "", default: 0] += 1
        }
        var problems: [String] = []
        for attempt in built.sorted() {
            // A build superseded by a reset still ends every node before it reports `build.cancelled`.
            let counts = outcomes[attempt] ?? [:]
            for name in graph.serviceNames where counts[name, default: 0] != 1 {
                problems.append("\(name) has \(counts[name, default: 0]) outcomes in \(attempt)")
            }
        }
        for attempt in outcomes.keys where !built.contains(attempt) {
            problems.append("node outcomes without a build in \(attempt)")
        }
        return StoryCheck(
            "every node ends in exactly one outcome per build", problems.isEmpty,
            detail: problems.prefix(5).joined(separator: "; "))
    }

    /// Rule §3.2: a node starts only after every dependency has a value in the same build.
    static func dependenciesFirst(_ events: [TraceEvent], graph: ServiceGraph) -> StoryCheck {
        var ready: [BuildAttempt: Set<String>] = [:]
        var problems: [String] = []
        for event in events {
            switch event.kind {
            case .nodeSucceeded(let node, _), .nodeReused(let node):
                ready[event.build, default: []].insert(node)
            case .nodeStarted(let node):
                let have = ready[event.build] ?? []
                let missing = (graph.dependencies(of: node) ?? []).filter { !have.contains($0) }
                if !missing.isEmpty {
                    problems.append("\(node) started before \(missing.joined(separator: ", ")) in \(event.build)")
                }
            default:
                break
            }
        }
        return StoryCheck(
            "a node starts only after all its dependencies have values", problems.isEmpty,
            detail: problems.prefix(5).joined(separator: "; "))
    }

    /// Rule §2.6: every caller that asked is answered exactly once (resumed or cancelled).
    static func everyCallerAnswered(_ events: [TraceEvent]) -> StoryCheck {
        var open: [String: Int] = [:]
        var problems: [String] = []
        for event in events {
            switch event.kind {
            case .callerJoined(let caller, _):
                open[caller, default: 0] += 1
            case .callerResumed(let caller, _), .callerCancelled(let caller):
                open[caller, default: 0] -= 1
                if open[caller, default: 0] < 0 { problems.append("\(caller) answered more often than it asked") }
            default:
                break
            }
        }
        let unanswered = open.filter { $0.value > 0 }.keys.sorted()
        if !unanswered.isEmpty { problems.append("never answered: " + unanswered.joined(separator: ", ")) }
        return StoryCheck(
            "every caller is answered exactly once", problems.isEmpty,
            detail: problems.prefix(5).joined(separator: "; "))
    }
}
