import Container
import TestSupport
import Testing

/// General rules every trace must follow, checked over the whole graph (not for one example).
/// Written independently of ContainerDemoKit's own checks, so a bug there cannot hide here.
enum TraceExpectations {
    struct Build: Hashable, CustomStringConvertible {
        let generation: Int
        let attempt: Int
        var description: String { "g\(generation)a\(attempt)" }
    }

    static func build(_ event: TraceEvent) -> Build { Build(generation: event.generation, attempt: event.attempt) }

    /// Every rule below.
    static func expectValid(
        _ events: [TraceEvent], graph: ServiceGraph, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectOneBuildPerAttempt(events, sourceLocation: sourceLocation)
        expectOneTerminalEventPerNode(events, graph: graph, sourceLocation: sourceLocation)
        expectDependenciesBeforeDependents(events, graph: graph, sourceLocation: sourceLocation)
        expectCallersAnsweredOnce(events, sourceLocation: sourceLocation)
        expectTimeNeverGoesBack(events, sourceLocation: sourceLocation)
    }

    /// Exactly one `build.started` for every attempt that has any node event.
    static func expectOneBuildPerAttempt(_ events: [TraceEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        var starts: [Build: Int] = [:]
        for event in events where event.kind == .buildStarted { starts[build(event), default: 0] += 1 }
        for (attempt, count) in starts {
            #expect(count == 1, "\(count) build.started events in \(attempt)", sourceLocation: sourceLocation)
        }
        for event in events where event.kind.node != nil && event.kind.name != "node.tornDown" {
            #expect(starts[build(event)] != nil, "\(event) without a build", sourceLocation: sourceLocation)
        }
    }

    /// Every node of the graph has exactly one terminal event in every build.
    static func expectOneTerminalEventPerNode(
        _ events: [TraceEvent], graph: ServiceGraph, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let builds = Set(events.filter { $0.kind == .buildStarted }.map(build))
        for attempt in builds {
            var terminal: [String: Int] = [:]
            for event in events where build(event) == attempt && event.kind.isTerminalNodeEvent {
                terminal[event.kind.node!, default: 0] += 1
            }
            for name in graph.serviceNames {
                #expect(
                    terminal[name] == 1, "\(name) has \(terminal[name] ?? 0) terminal events in \(attempt)",
                    sourceLocation: sourceLocation)
            }
            #expect(Set(terminal.keys).isSubset(of: Set(graph.serviceNames)), sourceLocation: sourceLocation)
        }
    }

    /// A node starts only after each of its dependencies succeeded or was reused, in the same build.
    static func expectDependenciesBeforeDependents(
        _ events: [TraceEvent], graph: ServiceGraph, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (index, event) in events.enumerated() {
            guard case .nodeStarted(let node) = event.kind else { continue }
            let before = events[..<index].filter { build($0) == build(event) }
            for dependency in graph.dependencies(of: node) ?? [] {
                let ready = before.contains { earlier in
                    switch earlier.kind {
                    case .nodeSucceeded(let name, _) where name == dependency: true
                    case .nodeReused(let name) where name == dependency: true
                    default: false
                    }
                }
                #expect(
                    ready, "\(node) started in \(build(event)) before its dependency \(dependency) had a value",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// Every `caller.joined` is answered by exactly one `caller.resumed` or `caller.cancelled`, after it.
    static func expectCallersAnsweredOnce(_ events: [TraceEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        var waiting: [String: Int] = [:]
        for event in events {
            switch event.kind {
            case .callerJoined(let caller, _):
                waiting[caller, default: 0] += 1
            case .callerResumed(let caller, _), .callerCancelled(let caller):
                #expect(
                    waiting[caller, default: 0] > 0, "\(caller) answered without asking", sourceLocation: sourceLocation
                )
                waiting[caller, default: 0] -= 1
            default:
                break
            }
        }
        let unanswered = waiting.filter { $0.value != 0 }
        #expect(unanswered.isEmpty, "callers never answered: \(unanswered)", sourceLocation: sourceLocation)
    }

    static func expectTimeNeverGoesBack(_ events: [TraceEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(earlier.time <= later.time, "\(later) is earlier than \(earlier)", sourceLocation: sourceLocation)
        }
    }
}

extension [TraceEvent] {
    func named(_ name: String) -> [TraceEvent] { filter { $0.kind.name == name } }
    func inBuild(_ generation: Int, _ attempt: Int) -> [TraceEvent] {
        filter { $0.generation == generation && $0.attempt == attempt }
    }
    func nodeNames(_ name: String) -> [String] { named(name).compactMap(\.kind.node) }
}
