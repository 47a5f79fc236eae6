@testable import Container

/// The invariants checked after a case has finished: what the callers got, what the trace says,
/// what every value went through, and what the reset reports say (DESIGN §2 rules 1–9, §3, §5).
struct CheckerInvariants {
    let plan: CheckerPlan
    let world: CheckerWorld
    /// The trace, for traced cases.
    let events: [TraceEvent]?
    private(set) var violations: [String] = []

    init(plan: CheckerPlan, world: CheckerWorld, events: [TraceEvent]?) {
        self.plan = plan
        self.world = world
        self.events = events
    }

    mutating func check(answers: [(CheckerCase.CallerRecord, CheckerCase.Answer)], reports: [ResetReport]) {
        let state = world.state.withLock { $0 }
        checkAnswers(answers, state: state)
        checkRuns(state)
        checkValues(state)
        checkReports(reports, state: state)
        if let events { checkTrace(events, answers: answers) }
    }

    private mutating func fail(_ text: String) { violations.append(text) }

    /// Rules 1, 5, 6, 7: one snapshot per generation, one failure per attempt, only allowed answers.
    private mutating func checkAnswers(
        _ answers: [(CheckerCase.CallerRecord, CheckerCase.Answer)], state: CheckerWorld.State
    ) {
        var snapshots: [Int: AppServices] = [:]
        var failures: [String: String] = [:]
        for (caller, answer) in answers {
            switch answer {
            case .snapshot(let snapshot):
                if let first = snapshots[snapshot.generation], first !== snapshot {
                    fail("two different snapshots of generation \(snapshot.generation) (rule 1)")
                }
                snapshots[snapshot.generation] = snapshot
                for index in plan.nodes.indices {
                    guard let value = try? snapshot[.checker(index)] else {
                        fail("snapshot of generation \(snapshot.generation) lacks \(plan.nodes[index].name) (§3.7)")
                        continue
                    }
                    // A value torn down before this caller asked must never be handed to it.
                    if let tornDownAt = state.values[ObjectIdentifier(value)]?.tornDownAt, tornDownAt < caller.startedAt
                    {
                        fail(
                            "\(caller.label) got \(plan.nodes[index].name) g\(value.generation), torn down before it asked"
                        )
                    }
                    if value.generation > snapshot.generation {
                        fail("snapshot g\(snapshot.generation) holds a value of generation \(value.generation)")
                    }
                }
            case .failure(let error):
                switch error.code {
                case .buildFailed:
                    guard let report = error.report else {
                        fail("buildFailed without a report")
                        continue
                    }
                    let key = "g\(report.generation)a\(report.attempt)"
                    if let first = failures[key], first != error.message {
                        fail("callers of \(key) got different failures (rule 1)")
                    }
                    failures[key] = error.message
                case .superseded, .shutDown: break
                default: fail("\(caller.label) got an unexpected container error: \(error)")
                }
            case .cancelled:
                if caller.mode == .none { fail("\(caller.label) was never cancelled but got CancellationError") }
            case .unexpected(let error):
                fail("\(caller.label) got an unexpected error: \(error)")
            }
        }
    }

    /// Rules 1–4: one run per node per attempt, kept values never rebuilt.
    private mutating func checkRuns(_ state: CheckerWorld.State) {
        for (run, count) in state.runs where count > 1 {
            fail("\(plan.nodes[run.node].name) ran \(count) times in g\(run.generation)a\(run.attempt) (rule 1)")
        }
        for (generation, nodes) in state.successes {
            for (node, count) in nodes where count > 1 {
                fail("\(plan.nodes[node].name) succeeded \(count) times in generation \(generation) (rule 3)")
            }
        }
    }

    /// §5: every value torn down exactly once (the order was checked as it happened).
    private mutating func checkValues(_ state: CheckerWorld.State) {
        for record in state.values.values where record.teardowns != 1 {
            fail(
                "\(plan.nodes[record.value.node].name) g\(record.value.generation) torn down "
                    + "\(record.teardowns) times (§5: exactly once)")
        }
    }

    /// §5: teardown errors are reported, each exactly once, and no report invents one.
    private mutating func checkReports(_ reports: [ResetReport], state: CheckerWorld.State) {
        var reported: [String: Int] = [:]
        for report in reports {
            for teardown in report.tornDown where teardown.error != nil {
                reported["\(teardown.service) g\(teardown.generation)", default: 0] += 1
            }
        }
        var happened: [String: Int] = [:]
        for failure in state.failedTeardowns { happened[failure, default: 0] += 1 }
        for (failure, count) in happened where reported[failure] != count {
            fail("teardown failure \(failure) happened \(count) times, reported \(reported[failure] ?? 0) times (§5)")
        }
        for (failure, count) in reported where happened[failure] == nil {
            fail("teardown failure \(failure) reported \(count) times but never happened")
        }
    }

    /// Rules 1, 4, 7 and §3.3, §3.5 as the trace tells them.
    private mutating func checkTrace(
        _ events: [TraceEvent], answers: [(CheckerCase.CallerRecord, CheckerCase.Answer)]
    ) {
        let steps = world.state.withLock { $0.steps }
        var retired = Set<Int>()
        var builds: [String: Int] = [:]
        var joined: [String: CallerState] = [:]
        for event in events {
            let attempt = "g\(event.generation)a\(event.attempt)"
            switch event.kind {
            case .generationReset(let change): retired.insert(change.from)
            case .containerShutdown: retired.insert(event.generation)
            case .snapshotPublished:
                if retired.contains(event.generation) {
                    fail("generation \(event.generation) published after it was retired (rule 7)")
                }
            case .buildStarted:
                builds[attempt, default: 0] += 1
                if builds[attempt]! > 1 { fail("\(attempt) was built twice (rule 1)") }
            case .nodeFailed(let node, let failure, let error):
                // A late error keeps its own classification and message (§3.8), never the timeout's.
                if let index = plan.nodes.firstIndex(where: { $0.name == node }),
                    steps[.init(generation: event.generation, attempt: event.attempt, node: index)] == .lateError,
                    failure != .permanent || !error.contains("late permanent error")
                {
                    fail("\(node) \(attempt) ended \(failure): \(error); its late error is permanent (§3.8)")
                }
            case .callerJoined(let caller, let state): joined[caller] = state
            default: break
            }
        }
        // A caller already cancelled when it called start() is answered without waiting: the
        // snapshot or failure when there is one, otherwise CancellationError; it never builds.
        for (caller, answer) in answers where caller.alreadyCancelled {
            guard let state = joined[caller.label] else {
                fail("\(caller.label) has no caller.joined event")
                continue
            }
            switch (state, answer) {
            case (.ready, .snapshot), (.failed, .failure), (.shutDown, .failure), (.idle, .cancelled),
                (.running, .cancelled):
                break
            default:
                fail("\(caller.label), already cancelled, found \(state) and got \(answer)")
            }
        }
    }
}
