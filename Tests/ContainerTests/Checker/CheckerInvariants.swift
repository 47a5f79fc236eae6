@testable import Container

/// The invariants checked after a case has finished: what the callers got, what the trace says,
/// what every value went through, and what the reset reports say (the Coordinator rules
/// article: rules 1–9, "Inside one build", "Teardown").
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

    mutating func check(
        answers: [(CheckerCase.CallerRecord, CheckerCase.Answer)], reports: [ServiceContainer.ResetReport]
    ) {
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
        var snapshots: [String: AppServices] = [:]
        var failures: [String: String] = [:]
        for (caller, answer) in answers {
            let label = caller.instance ?? "app"
            // After a shutdown: refused at once, never built for (a scope instance is closed by it).
            if caller.afterShutdown {
                switch answer {
                case .failure(let error) where error.code == .shutDown: break
                case .failure(let error) where error.code == .closed && caller.instance != nil: break
                default: fail("\(caller.label) called after the shutdown and got \(answer), not the shutDown error")
                }
            }
            switch answer {
            case .snapshot(let snapshot):
                let key = "\(CheckerWorld.key(label, in: caller.incarnations)) g\(snapshot.generation)"
                if let first = snapshots[key], first !== snapshot {
                    fail("two different snapshots of \(key) (rule 1)")
                }
                snapshots[key] = snapshot
                if snapshot.scope != caller.instance {
                    fail("\(caller.label) got a snapshot of \(snapshot.scope ?? "app")")
                }
                // An app snapshot holds every app service; a scope instance's, every service of its
                // scope and those it uses of its chain.
                let depth = caller.instance.map { $0.contains("/") ? 2 : 1 } ?? 0
                let expected = plan.nodes.indices.filter { plan.nodes[$0].level == depth }
                for index in expected where !snapshot.contains(plan.nodes[index].name) {
                    fail("snapshot \(key) lacks \(plan.nodes[index].name) (a snapshot is complete)")
                }
                for index in plan.nodes.indices where snapshot.contains(plan.nodes[index].name) {
                    guard let value = try? snapshot[.checker(index)] else {
                        fail("snapshot \(key) cannot read \(plan.nodes[index].name)")
                        continue
                    }
                    // A value torn down before this caller asked must never be handed to it.
                    if let tornDownAt = state.values[ObjectIdentifier(value)]?.tornDownAt, tornDownAt < caller.startedAt
                    {
                        fail(
                            "\(caller.label) got \(plan.nodes[index].name) g\(value.generation), torn down before it asked"
                        )
                    }
                    // Its own values are of its generation; those of its parent of the generation it
                    // was built on (an instance of `t` does not know the app's generation).
                    let built: Int? =
                        value.label == label
                        ? snapshot.generation : depth - plan.nodes[index].level == 1 ? snapshot.appGeneration : nil
                    if let built, value.generation > built {
                        fail("snapshot \(key) holds a value of a later generation \(value.generation)")
                    }
                }
            case .failure(let error):
                switch error.code {
                case .buildFailed:
                    guard let report = error.report else {
                        fail("buildFailed without a report")
                        continue
                    }
                    // A scope caller may get its own build's failure, its parent's or the app's.
                    let owner = CheckerWorld.key(
                        plan.owner(of: report, askedOf: caller.instance), in: caller.incarnations)
                    let key = "\(owner) g\(report.generation)a\(report.attempt)"
                    if let first = failures[key], first != error.message {
                        fail("callers of \(key) got different failures (rule 1)")
                    }
                    failures[key] = error.message
                case .superseded, .shutDown: break
                case .closed where caller.instance != nil: break
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
            fail(
                "\(run.label) \(plan.nodes[run.node].name) ran \(count) times in g\(run.generation)a\(run.attempt) "
                    + "(rule 1)")
        }
        for (generation, nodes) in state.successes {
            for (node, count) in nodes where count > 1 {
                fail(
                    "\(generation.label) \(plan.nodes[node].name) succeeded \(count) times in generation "
                        + "\(generation.generation) (rule 3)")
            }
        }
    }

    /// Teardown: every value torn down exactly once (the order was checked as it happened).
    private mutating func checkValues(_ state: CheckerWorld.State) {
        for record in state.values.values where record.teardowns != 1 {
            fail(
                "\(record.value.label) \(plan.nodes[record.value.node].name) g\(record.value.generation) torn down "
                    + "\(record.teardowns) times (teardown: exactly once)")
        }
    }

    /// Teardown: teardown errors are reported, each exactly once, and no report invents one.
    private mutating func checkReports(_ reports: [ServiceContainer.ResetReport], state: CheckerWorld.State) {
        var reported: [String: Int] = [:]
        for report in reports {
            for teardown in report.tornDown where teardown.error != nil {
                reported["\(teardown.scope ?? "app")/\(teardown.service) g\(teardown.generation)", default: 0] += 1
            }
        }
        var happened: [String: Int] = [:]
        for failure in state.failedTeardowns { happened[failure, default: 0] += 1 }
        for (failure, count) in happened where reported[failure] != count {
            fail("teardown failure \(failure) happened \(count) times, reported \(reported[failure] ?? 0) times")
        }
        for (failure, count) in reported where happened[failure] == nil {
            fail("teardown failure \(failure) reported \(count) times but never happened")
        }
    }

    /// Rules 1, 4, 7 and "Inside one build" (one outcome per node, classification) as the trace tells them.
    private mutating func checkTrace(
        _ events: [TraceEvent], answers: [(CheckerCase.CallerRecord, CheckerCase.Answer)]
    ) {
        let steps = world.state.withLock { $0.steps }
        // Per coordinator: the app's, and each scope instance's (events carry its label).
        var retired = Set<String>()
        var builds: [String: Int] = [:]
        var joined: [String: TraceEvent.CallerState] = [:]
        var published = Set<String>()
        // An id may be opened again once closed: each opening is a new instance (incarnation).
        var incarnations: [String: Int] = [:]
        // Once the app shut down, nothing builds or publishes, the app or a scope instance.
        var shutDown = false
        for event in events {
            if event.kind == .scopeOpened, let scope = event.scope { incarnations[scope, default: 0] += 1 }
            // Keyed as the world keys its runs (see `CheckerWorld.key(_:in:)`).
            let label = event.scope.map { CheckerWorld.key($0, in: incarnations) } ?? "app"
            let attempt = "\(label) g\(event.generation)a\(event.attempt)"
            switch event.kind {
            case .generationReset(let change): retired.insert("\(label) g\(change.from)")
            case .containerShutdown, .scopeClosed:
                // Every instance's `scope.closed` comes before `container.shutdown`, also one that
                // was closing on its own when the shutdown began.
                if shutDown { fail("\(label) traced \(event.kind.name) after container.shutdown") }
                retired.insert("\(label) g\(event.generation)")
                if event.kind == .containerShutdown { shutDown = true }
            case .snapshotPublished:
                if shutDown { fail("\(label) published generation \(event.generation) after the shutdown") }
                if retired.contains("\(label) g\(event.generation)") {
                    fail("\(label) generation \(event.generation) published after it was retired (rule 7)")
                }
                published.insert("\(label) g\(event.generation)")
            case .buildStarted:
                if shutDown { fail("\(attempt) started after the shutdown") }
                builds[attempt, default: 0] += 1
                if builds[attempt]! > 1 { fail("\(attempt) was built twice (rule 1)") }
            case .nodeFailed(let node, let failure, let error, _):
                // A late error keeps its own classification and message ("Inside one build"), never the timeout's.
                if let index = plan.nodes.firstIndex(where: { $0.name == node }),
                    steps[.init(label: label, generation: event.generation, attempt: event.attempt, node: index)]
                        == .lateError,
                    failure != .permanent || !error.contains("late permanent error")
                {
                    fail("\(node) \(attempt) ended \(failure): \(error); its late error is permanent")
                }
            case .callerJoined(let caller, let state, _):
                joined[caller] = state
                // A caller that found the container ready comes after the snapshot it received.
                if state == .ready && !published.contains("\(label) g\(event.generation)") {
                    fail("\(caller) found \(label) generation \(event.generation) ready before its snapshot.published")
                }
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
            case (.ready, .snapshot), (.failed, .failure), (.shutDown, .failure), (.waiting, .failure),
                (.idle, .cancelled), (.running, .cancelled):
                break
            default:
                fail("\(caller.label), already cancelled, found \(state) and got \(answer)")
            }
        }
    }
}
