public import Container

extension TraceExpectation {
    /// The caller (as named by `start(as:)` or an entry point's id) received the snapshot at least once.
    public static func resumedWithSnapshot(_ caller: String) -> TraceExpectation {
        resumed(caller, with: .snapshot)
    }

    /// The caller was resumed with `result` (the snapshot, the failure, or superseded by a reset).
    public static func resumed(_ caller: String, with result: TraceEvent.CallerResult) -> TraceExpectation {
        TraceExpectation("\(caller) resumed with \(describe(result))") { events in
            if events.contains(where: { $0.kind == .callerResumed(caller: caller, result: result) }) { return nil }
            return answers(of: caller, in: events)
        }
    }

    /// The caller joined and found the container in `state` (idle: it started the build; running: it joined one).
    public static func joined(_ caller: String, finding state: TraceEvent.CallerState) -> TraceExpectation {
        TraceExpectation("\(caller) joined finding the container \(state)") { events in
            let joined = events.contains {
                if case .callerJoined(caller, state, _) = $0.kind { true } else { false }
            }
            if joined { return nil }
            return answers(of: caller, in: events)
        }
    }

    /// The caller's wait ended by its own cancellation.
    public static func cancelled(_ caller: String) -> TraceExpectation {
        TraceExpectation("\(caller) cancelled") { events in
            events.contains { $0.kind == .callerCancelled(caller: caller) } ? nil : answers(of: caller, in: events)
        }
    }

    /// What the trace says about a caller, for a failure's detail.
    static func answers(of caller: String, in events: [TraceEvent]) -> String {
        let seen = events.compactMap { event -> String? in
            switch event.kind {
            case .callerJoined(caller, let state, _): "joined (\(state))"
            case .callerResumed(caller, let result): "resumed with \(describe(result))"
            case .callerCancelled(caller): "cancelled"
            default: nil
            }
        }
        return seen.isEmpty ? "no events for caller \(caller)" : "\(caller): " + seen.joined(separator: ", ")
    }

    private static func describe(_ result: TraceEvent.CallerResult) -> String {
        switch result {
        case .snapshot: "the snapshot"
        case .failure: "the failure"
        case .superseded: "superseded"
        }
    }
}
