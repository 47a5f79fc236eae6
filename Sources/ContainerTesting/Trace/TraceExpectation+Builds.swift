import Container

extension TraceExpectation {
    /// Exactly `count` builds started (attempts of any generation, in the app or a scope instance).
    public static func builds(_ count: Int) -> TraceExpectation {
        TraceExpectation("\(count) build\(count == 1 ? "" : "s") started") { events in
            let started = events.filter { $0.kind == .buildStarted }
            return started.count == count
                ? nil : "\(started.count) started: " + started.map(\.build.description).joined(separator: ", ")
        }
    }

    /// A snapshot was published exactly `count` times.
    public static func published(times count: Int) -> TraceExpectation {
        TraceExpectation("snapshot published \(times(count))") { events in
            let published = events.filter { $0.kind.name == "snapshot.published" }
            return published.count == count
                ? nil
                : "published \(times(published.count))" + published.map { " in \($0.build)" }.joined(separator: ",")
        }
    }

    /// No snapshot of a generation was published after that generation was reset: a reset
    /// cancels the running build, which can never publish (rule 7 of Container's CoordinatorRules article).
    public static var noSnapshotAfterReset: TraceExpectation {
        TraceExpectation("no snapshot is published after a reset of its generation") { events in
            var retired: Set<InstanceGeneration> = []
            var problems: [String] = []
            for event in events {
                switch event.kind {
                case .generationReset(let change):
                    retired.insert(InstanceGeneration(scope: event.scope, generation: change.from))
                case .snapshotPublished:
                    if retired.contains(InstanceGeneration(scope: event.scope, generation: event.generation)) {
                        problems.append("\(event.build) published after its generation was reset")
                    }
                default:
                    break
                }
            }
            return problems.isEmpty ? nil : problems.prefix(5).joined(separator: "; ")
        }
    }
}

/// A generation of the app (`scope` `nil`) or of one scope instance.
struct InstanceGeneration: Hashable {
    let scope: String?
    let generation: Int
}
