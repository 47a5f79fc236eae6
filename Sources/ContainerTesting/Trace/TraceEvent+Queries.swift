public import Container

/// Small queries over a trace, for checks that the standard expectations do not cover.
extension Array where Element == TraceEvent {
    /// The events with the JSON Lines name `name` (`"node.started"`).
    public func named(_ name: String) -> [TraceEvent] { filter { $0.kind.name == name } }

    /// How many events have the JSON Lines name `name`.
    public func count(_ name: String) -> Int { count { $0.kind.name == name } }

    /// The nodes of the events named `name`, in order (`nodes("node.skipped")`).
    public func nodes(_ name: String) -> [String] { named(name).compactMap(\.kind.node) }

    /// The events of one build attempt (of the app and of scope instances alike).
    public func inBuild(_ generation: Int, _ attempt: Int) -> [TraceEvent] {
        let build = BuildAttempt(generation: generation, attempt: attempt)
        return filter { $0.build == build }
    }
}

extension TraceEvent.Kind {
    /// Whether this is `node`'s `node.started`, wherever and at whatever priority it ran (a
    /// comparison with `.nodeStarted(node:)` would also compare its executor and priority).
    public func starts(_ node: String) -> Bool {
        if case .nodeStarted(node, _, _, _) = self { true } else { false }
    }
}
