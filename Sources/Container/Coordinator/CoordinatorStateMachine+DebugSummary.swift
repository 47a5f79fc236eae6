/// A few lines saying where a machine stands, for a test that timed out waiting for it (the
/// randomized checker prints it with a case that did not finish).
extension CoordinatorStateMachine {
    /// The phase, the build and the stopping one, the operations waiting and the children.
    var debugSummary: String {
        var lines = ["\(scopeInstance ?? "app") g\(generation) a\(attempt) \(phase.debugName)"]
        if let build { lines.append("  build: \(build.debugSummary)") }
        if let stopping { lines.append("  stopping: \(stopping.debugSummary)") }
        if !demands.isEmpty { lines.append("  requests waiting") }
        lines.append("  teardowns: \(teardowns.debugSummary)")
        for entry in children.all {
            lines.append("  child \(entry.id) \(entry.label) \(entry.state) leases \(entry.lease.count)")
        }
        return lines.joined(separator: "\n")
    }
}

extension CoordinatorStateMachine.Phase {
    fileprivate var debugName: String {
        switch self {
        case .open: "open"
        case .draining(let shutdown): "draining for operation \(shutdown)"
        case .shutDown(let error, let operation): "shut down by operation \(operation) (\(error.code))"
        }
    }
}

extension BuildState {
    fileprivate var debugSummary: String {
        "\(id) \(build) launched \(isLaunched) running \(running) ready \(ready.count) unstarted \(unstarted) "
            + "awaitingApp \(awaitingApp) stopped \(stopped)"
    }
}
