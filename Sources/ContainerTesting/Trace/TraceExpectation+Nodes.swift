public import Container

extension TraceExpectation {
    /// The node's provider ran in exactly one build, and the node succeeded there: one
    /// `node.started` (retries within that build included) and one `node.succeeded`, in the
    /// whole trace.
    public static func builtOnce(_ node: String) -> TraceExpectation {
        TraceExpectation("\(node) built once") { events in
            let started = events.count { $0.isStart(of: node) }
            let succeeded = events.count { if case .nodeSucceeded(node, _) = $0.kind { true } else { false } }
            guard started != 1 || succeeded != 1 else { return nil }
            return "started \(times(started)), succeeded \(times(succeeded))"
        }
    }

    /// The node started exactly `count` times in the whole trace (once per build that ran it).
    public static func started(_ node: String, times count: Int) -> TraceExpectation {
        TraceExpectation("\(node) started \(times(count))") { events in
            let started = events.count { $0.isStart(of: node) }
            return started == count ? nil : "started \(times(started))"
        }
    }

    /// The node never started: it was skipped, reused, cancelled before it started, or never asked for.
    public static func notStarted(_ node: String) -> TraceExpectation {
        TraceExpectation("\(node) never started") { events in
            let started = events.filter { $0.isStart(of: node) }
            return started.isEmpty ? nil : "started in " + started.map(\.build.description).joined(separator: ", ")
        }
    }

    /// The node succeeded at least once.
    public static func succeeded(_ node: String) -> TraceExpectation {
        TraceExpectation("\(node) succeeded") { events in
            events.contains { if case .nodeSucceeded(node, _) = $0.kind { true } else { false } }
                ? nil : outcomes(of: node, in: events)
        }
    }

    /// The node failed at least once; with `kind`, a failure of that kind.
    public static func failed(_ node: String, _ kind: FailureKind? = nil) -> TraceExpectation {
        TraceExpectation("\(node) failed" + (kind.map { " (\($0))" } ?? "")) { events in
            let failed = events.contains {
                guard case .nodeFailed(node, let failure, _, _) = $0.kind else { return false }
                return kind == nil || failure == kind
            }
            return failed ? nil : outcomes(of: node, in: events)
        }
    }

    /// The node was skipped because `dependency` had no value (it failed, or was skipped itself).
    public static func skipped(_ node: String, because dependency: String) -> TraceExpectation {
        TraceExpectation("\(node) skipped because of \(dependency)") { events in
            let reasons = events.compactMap { event -> [String]? in
                if case .nodeSkipped(node, let because) = event.kind { because } else { nil }
            }
            if reasons.contains(where: { $0.contains(dependency) }) { return nil }
            return reasons.isEmpty
                ? outcomes(of: node, in: events)
                : "skipped because of " + reasons.map { $0.joined(separator: ", ") }.joined(separator: "; ")
        }
    }

    /// The node's value was carried over from an earlier attempt or generation at least once.
    public static func reused(_ node: String) -> TraceExpectation {
        TraceExpectation("\(node) reused") { events in
            events.contains { $0.kind == .nodeReused(node: node) } ? nil : outcomes(of: node, in: events)
        }
    }

    /// The node was replaced by a `ServiceGraph.Override`: it started, and every `node.started` of it
    /// is marked as an override.
    public static func overridden(_ node: String) -> TraceExpectation {
        TraceExpectation("\(node) started as an override") { events in
            var starts = 0
            var overridden = 0
            for event in events {
                guard case .nodeStarted(node, let isOverride, _, _) = event.kind else { continue }
                starts += 1
                if isOverride { overridden += 1 }
            }
            if starts > 0 && overridden == starts { return nil }
            if starts == 0 { return "\(node) never started" }
            return overridden == 0
                ? "\(node) started \(times(starts)), never as an override"
                : "\(node) started \(times(starts)), \(overridden) as an override"
        }
    }

    /// The node's values were torn down `count` times.
    public static func tornDown(_ node: String, times count: Int) -> TraceExpectation {
        TraceExpectation("\(node) torn down \(times(count))") { events in
            let tornDown = events.count { if case .nodeTornDown(node, _) = $0.kind { true } else { false } }
            return tornDown == count ? nil : "torn down \(times(tornDown))"
        }
    }

    /// The nodes' first teardowns happened in this order (e.g. dependents before their dependencies).
    public static func tornDown(inOrder nodes: [String]) -> TraceExpectation {
        TraceExpectation("torn down in the order \(nodes.joined(separator: ", "))") { events in
            var seen: [String] = []
            for event in events {
                if case .nodeTornDown(let node, _) = event.kind, nodes.contains(node), !seen.contains(node) {
                    seen.append(node)
                }
            }
            return seen == nodes ? nil : "torn down: \(seen.isEmpty ? "none" : seen.joined(separator: ", "))"
        }
    }

    /// What happened to `node`, for a failure's detail: `started, failed (transient)` or `no events`.
    static func outcomes(of node: String, in events: [TraceEvent]) -> String {
        let names = events.filter { $0.kind.node == node }.map { event -> String in
            switch event.kind {
            case .nodeFailed(_, let failure, _, let optional): "failed (\(optional ? "optional, " : "")\(failure))"
            case .nodeSkipped(_, let because): "skipped because of \(because.joined(separator: ", "))"
            case .inputSupplied(_, let replaced): replaced ? "supplied again" : "supplied"
            default: String(event.kind.name.dropFirst("node.".count))
            }
        }
        return names.isEmpty ? "no events for \(node)" : "\(node): " + names.joined(separator: ", ")
    }

    /// `1 time`, `2 times`.
    static func times(_ count: Int) -> String { count == 1 ? "1 time" : "\(count) times" }
}

extension TraceEvent {
    /// Whether this is a `node.started` of `node`.
    func isStart(of node: String) -> Bool { kind.name == "node.started" && kind.node == node }
}
