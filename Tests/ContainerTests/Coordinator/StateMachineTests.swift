import TestSupport
import Testing

@testable import Container

/// The coordinator's state machine as a value: events in, actions out, no concurrency (STYLE rule 12).
@Suite("Coordinator state machine as a value")
struct StateMachineTests {
    typealias Machine = CoordinatorStateMachine<String, String, Int>

    static func graph() throws -> ServiceGraph {
        try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
        ])
    }

    static func box(_ name: String, generation: Int = 1, attempt: Int = 1) -> AnyServiceBox {
        ServiceBox(
            0, name: name, builtIn: BuildAttempt(generation: generation, attempt: attempt), tearDown: { _ in })
    }

    static func result(
        generation: Int = 1, attempt: Int = 1, succeeded: Bool, built: [Int: AnyServiceBox],
        failure: FailureKind = .transient
    ) -> BuildResult {
        let outcomes: [NodeOutcome] =
            succeeded
            ? [.succeeded(duration: .zero), .succeeded(duration: .zero)]
            : [.succeeded(duration: .zero), .failed(NodeFailure(kind: failure, message: "x", error: TestError()))]
        let report = BuildReport(
            generation: generation, attempt: attempt,
            nodes: zip(["a", "b"], outcomes).map {
                .init(name: $0, outcome: $1, runs: 1, startedAt: nil, endedAt: nil)
            },
            startedAt: .zero, endedAt: .zero, wasCancelled: false)
        return BuildResult(report: report, built: built, values: [built[0], built[1]])
    }

    /// A caller's start, with the defaults of an ordinary caller.
    static func start(
        _ machine: inout Machine, _ caller: Int, priority: UInt8 = 21, cancelled: Bool = false, now: Duration = .zero
    ) -> Machine.StartAction {
        machine.startRequested(
            caller: caller, label: "c\(caller)", waiter: "w\(caller)", priority: priority, isCancelled: cancelled,
            now: now)
    }

    /// Starts caller 1 and launches its build with handle `handle`; returns the ticket.
    static func launch(_ machine: inout Machine, caller: Int = 1, handle: Int = 1) throws -> Machine.BuildTicket {
        guard case .launch(let ticket) = start(&machine, caller) else {
            Issue.record("the first caller launches a build")
            throw TestError("no launch")
        }
        machine.buildLaunched(id: ticket.id, handle: handle)
        return ticket
    }

    static func expectValid(_ machine: Machine, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            machine.invariantViolations().isEmpty, "\(machine.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test("The first caller launches a build; later callers join it; success resumes everyone once")
    func startJoinPublish() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine)
        #expect(ticket.build == BuildAttempt(generation: 1, attempt: 1) && ticket.kept.isEmpty)
        guard case .park = Self.start(&machine, 2) else { return fail("the second caller joins") }
        Self.expectValid(machine)

        let done = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]), now: .zero
        )
        guard case .publish(let snapshot, let waiters, _) = done else { return fail("success publishes") }
        #expect(waiters == ["w1", "w2"], "in arrival order")
        #expect(machine.snapshot === snapshot)
        Self.expectValid(machine)

        // Ready: a later caller is answered at once, nothing is launched.
        guard case .answer("w3", .snapshot(let same)) = Self.start(&machine, 3) else {
            return fail("ready answers at once")
        }
        #expect(same === snapshot)
    }

    @Test("A waiter cancelled after completion is not resumed a second time")
    func cancelAfterCompletion() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine)
        _ = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]), now: .zero
        )
        guard case .none = machine.waiterCancelled(caller: 1) else { return fail("exactly once") }
    }

    @Test("A waiter cancelled before completion is resumed once, and not again by completion")
    func cancelBeforeCompletion() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine)
        guard case .resume("w1") = machine.waiterCancelled(caller: 1) else { return fail("resumed at once") }
        let done = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]), now: .zero
        )
        guard case .publish(_, let waiters, _) = done else { return fail("still publishes for later callers") }
        #expect(waiters.isEmpty)
    }

    @Test("A caller already cancelled gets the snapshot or failure when there is one, never starts a build")
    func alreadyCancelledCaller() throws {
        var machine = Machine(graph: try Self.graph())
        guard case .answer("w1", .cancelled) = Self.start(&machine, 1, cancelled: true) else {
            return fail("idle: cancelled at once")
        }
        #expect(machine.currentAttempt.attempt == 1)
        if case .running = machine.phase { Issue.record("a cancelled caller must not start a build") }
        let ticket = try Self.launch(&machine, caller: 2)
        guard case .answer("w3", .cancelled) = Self.start(&machine, 3, cancelled: true) else {
            return fail("running: cancelled at once, not parked")
        }
        _ = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]), now: .zero
        )
        guard case .answer("w4", .snapshot) = Self.start(&machine, 4, cancelled: true) else {
            return fail("ready: the snapshot, as for an untraced fast-path caller")
        }
    }

    @Test("A superseded build can never publish, whatever it returns; its late values go to that reset only")
    func staleBuildNeverPublishes() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine, handle: 7)

        guard case .proceed(let supersession, let lifecycle) = machine.resetRequested(invalidating: nil, waiter: "r")
        else { return fail("the reset proceeds") }
        #expect(supersession.cancel == 7)
        #expect(supersession.resume == ["w1"] && supersession.error.code == .superseded)
        #expect(lifecycle.completed.isEmpty, "the reset waits for the old build to stop")
        #expect(machine.generation == 2)
        // A second reset while the old build still runs.
        guard case .proceed(_, let second) = machine.resetRequested(invalidating: nil, waiter: "r2") else {
            return fail("the second reset proceeds")
        }
        #expect(second.completed.isEmpty)

        // The old build finishes successfully anyway: no publish, its values are torn down.
        let a = Self.box("a")
        let b = Self.box("b")
        let stale = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: a, 1: b]), now: .zero)
        guard case .discard(let after) = stale, case .tearDown(let batch) = after.next else {
            return fail("a stale build is discarded and its values torn down")
        }
        #expect(machine.snapshot == nil)
        #expect(batch.map(\.box.name) == ["b", "a"], "dependents first")
        let records = batch.map { item in
            Machine.Jobs.TeardownRecord(
                owner: item.owner, record: .init(service: item.box.name, generation: 1, error: "failed"))
        }
        let finished = machine.teardownFinished(records)
        let reports = Dictionary(uniqueKeysWithValues: finished.completed.map { ($0.waiter, $0.report) })
        #expect(
            reports["r"]?.tornDown.map(\.service) == ["b", "a"], "the reset that superseded the build reports them")
        #expect(reports["r2"]?.tornDown.isEmpty == true, "and no other reset does")
        Self.expectValid(machine)
    }

    @Test("A caller arriving during a reset's teardown waits; its build launches after the teardown")
    func noOverlap() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine)
        _ = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]), now: .zero
        )

        guard case .proceed(let supersession, let lifecycle) = machine.resetRequested(invalidating: nil, waiter: "r"),
            case .tearDown(let batch) = lifecycle.next
        else { return fail("the reset tears down") }
        #expect(batch.count == 2 && supersession.clearSnapshot)
        guard case .park = Self.start(&machine, 2) else { return fail("no build while the teardown runs") }
        Self.expectValid(machine)
        let after = machine.teardownFinished([])
        #expect(after.completed.map(\.waiter) == ["r"])
        guard case .launch(let launched) = after.next else { return fail("launched after the teardown") }
        #expect(launched.build == BuildAttempt(generation: 2, attempt: 1) && launched.kept.isEmpty)
    }

    @Test("Transient failure keeps succeeded values for the next attempt; permanent failure is sticky")
    func failures() throws {
        var machine = Machine(graph: try Self.graph())
        var ticket = try Self.launch(&machine)
        let kept = Self.box("a")
        let transient = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: false, built: [0: kept]), now: .zero)
        guard case .fail(let error, _, let after) = transient, case .none = after.next else {
            return fail("a transient failure tears nothing down")
        }
        #expect(error.failure == .transient)

        ticket = try Self.launch(&machine, caller: 2, handle: 2)
        #expect(ticket.build.attempt == 2 && ticket.kept[0] === kept)
        let permanent = machine.buildFinished(
            id: ticket.id, result: Self.result(attempt: 2, succeeded: false, built: [:], failure: .permanent),
            now: .zero)
        guard case .fail(_, _, let retire) = permanent, case .tearDown(let batch) = retire.next else {
            return fail("a permanent failure retires the generation's values")
        }
        #expect(batch.map(\.box.name) == ["a"])
        _ = machine.teardownFinished(
            batch.map { .init(owner: $0.owner, record: .init(service: $0.box.name, generation: 1, error: "boom")) })
        #expect(machine.unreportedTeardowns.map(\.service) == ["a"], "kept for the next report")

        guard case .answer(_, .failure(let sticky)) = Self.start(&machine, 3) else {
            return fail("a failed container answers at once with its failure")
        }
        #expect(sticky.failure == .permanent)
        // The next reset reports the teardown nobody reported, once.
        guard case .proceed(_, let reset) = machine.resetRequested(invalidating: nil, waiter: "r") else {
            return fail("the reset proceeds")
        }
        #expect(reset.completed.first?.report.failures.map(\.service) == ["a"])
        #expect(machine.unreportedTeardowns.isEmpty)
    }

    @Test("Overlapping resets each report only the teardowns of the values they retired")
    func resetsReportTheirOwnTeardowns() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine)
        let a = Self.box("a")
        let b = Self.box("b")
        _ = machine.buildFinished(id: ticket.id, result: Self.result(succeeded: true, built: [0: a, 1: b]), now: .zero)

        guard case .proceed(_, let first) = machine.resetRequested(invalidating: [1], waiter: "reset b"),
            case .tearDown(let batchB) = first.next
        else { return fail("the first reset tears b down") }
        #expect(batchB.map(\.box.name) == ["b"])
        guard case .proceed(_, let second) = machine.resetRequested(invalidating: [0], waiter: "reset a"),
            case .none = second.next
        else { return fail("one teardown job at a time") }

        let record = { (item: Machine.Jobs.Teardown) in
            Machine.Jobs.TeardownRecord(
                owner: item.owner, record: .init(service: item.box.name, generation: 1, error: nil))
        }
        let afterB = machine.teardownFinished(batchB.map(record))
        guard case .tearDown(let batchA) = afterB.next else { return fail("then a") }
        #expect(batchA.map(\.box.name) == ["a"])
        let done = machine.teardownFinished(batchA.map(record))
        let reports = Dictionary(uniqueKeysWithValues: done.completed.map { ($0.waiter, $0.report) })
        #expect(reports["reset b"]?.tornDown.map(\.service) == ["b"])
        #expect(reports["reset a"]?.tornDown.map(\.service) == ["a"])
    }

    @Test("A higher-priority caller escalates the running build; the build launches at its callers' highest")
    func priorities() throws {
        var machine = Machine(graph: try Self.graph())
        guard case .launch(let ticket) = Self.start(&machine, 1, priority: 9) else { return fail("launch") }
        #expect(ticket.priority == 9)
        machine.buildLaunched(id: ticket.id, handle: 5)
        guard case .park = Self.start(&machine, 2, priority: 9) else { return fail("same priority: park") }
        guard case .escalate(5, let raised) = Self.start(&machine, 3, priority: 25) else {
            return fail("a higher caller escalates the build")
        }
        #expect(raised == 25)
        guard case .park = Self.start(&machine, 4, priority: 21) else { return fail("lower: park") }
        guard case .none = machine.callerEscalated(priority: 21) else { return fail("not above 25") }

        // Reset while a teardown runs: the next build waits and launches at the highest priority.
        _ = machine.buildFinished(
            id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]), now: .zero
        )
        _ = machine.resetRequested(invalidating: nil, waiter: "r")
        _ = Self.start(&machine, 5, priority: 9)
        _ = Self.start(&machine, 6, priority: 25)
        guard case .launch(let next) = machine.teardownFinished([]).next else { return fail("launch") }
        #expect(next.priority == 25)
    }

    @Test("The attempt budget: callers before retryAfter get the last failure; the last attempt's failure is sticky")
    func attemptBudget() throws {
        let policy = BuildPolicy(maxAttempts: 2, retryAfter: Backoff(initialDelay: .seconds(1)))
        var machine = Machine(graph: try Self.graph(), policy: policy)
        let first = try Self.launch(&machine)
        guard
            case .fail(let failure, _, _) = machine.buildFinished(
                id: first.id, result: Self.result(succeeded: false, built: [:]), now: .seconds(10))
        else { return fail("attempt 1 fails") }
        guard case .answer(_, .failure(let early)) = Self.start(&machine, 2, now: .seconds(10.5)) else {
            return fail("before retryAfter: the last failure at once")
        }
        #expect(early.message == failure.message)
        guard case .launch(let second) = Self.start(&machine, 3, now: .seconds(11)) else {
            return fail("after retryAfter: attempt 2")
        }
        #expect(second.build.attempt == 2)
        machine.buildLaunched(id: second.id, handle: 2)
        guard
            case .fail(let exhausted, _, _) = machine.buildFinished(
                id: second.id, result: Self.result(attempt: 2, succeeded: false, built: [:]), now: .seconds(12))
        else { return fail("attempt 2 fails") }
        #expect(exhausted.code == .attemptsExhausted)
        guard case .answer(_, .failure(let sticky)) = Self.start(&machine, 4, now: .seconds(1_000)) else {
            return fail("sticky until reset")
        }
        #expect(sticky.code == .attemptsExhausted)
        _ = machine.resetRequested(invalidating: nil, waiter: "r")
        guard case .launch(let fresh) = Self.start(&machine, 5, now: .seconds(1_000)) else {
            return fail("a reset starts a new budget")
        }
        #expect(fresh.build == BuildAttempt(generation: 2, attempt: 1))
    }

    @Test("A graceful shutdown lets the build finish and refuses new callers; the deadline cancels it")
    func gracefulShutdown() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine, handle: 3)
        guard
            case .drain(let operation) = machine.shutdownRequested(
                waiter: "s", graceful: true, error: .shutDown(generation: 1))
        else { return fail("a running build may finish") }
        guard case .answer(_, .failure(let refused)) = Self.start(&machine, 2) else { return fail("refused") }
        #expect(refused.code == .shutDown)
        guard
            case .drained(.snapshot, let waiters, let after) = machine.buildFinished(
                id: ticket.id, result: Self.result(succeeded: true, built: [0: Self.box("a"), 1: Self.box("b")]),
                now: .zero),
            case .tearDown(let batch) = after.next
        else { return fail("its callers get the snapshot, then everything is torn down") }
        #expect(waiters == ["w1"] && batch.count == 2)
        guard case .none = machine.shutdownDeadlinePassed(operation: operation) else {
            return fail("the deadline after the build finished does nothing")
        }
        #expect(machine.teardownFinished([]).completed.map(\.waiter) == ["s"])

        var late = Machine(graph: try Self.graph())
        _ = try Self.launch(&late, handle: 4)
        guard
            case .drain(let op) = late.shutdownRequested(waiter: "s", graceful: true, error: .shutDown(generation: 1)),
            case .cancel(let supersession, _) = late.shutdownDeadlinePassed(operation: op)
        else { return fail("the deadline cancels the build") }
        #expect(supersession.cancel == 4 && supersession.resume == ["w1"] && supersession.error.code == .shutDown)
    }

    @Test("A reload carries the named values to their new slots and retires the others")
    func reload() throws {
        var machine = Machine(graph: try Self.graph())
        let ticket = try Self.launch(&machine)
        let a = Self.box("a")
        let b = Self.box("b")
        _ = machine.buildFinished(id: ticket.id, result: Self.result(succeeded: true, built: [0: a, 1: b]), now: .zero)
        let newGraph = try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("c")) { _ in 3 },
            ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
        ])
        let change = GenerationChange(
            from: 1, to: 2, invalidated: ["c"], reason: .reload, added: ["c"], removed: ["b"], changed: [])
        guard
            case .proceed(_, let lifecycle) = machine.reloadRequested(
                graph: newGraph, carrying: [-1, 0], change: change, waiter: "r"),
            case .tearDown(let batch) = lifecycle.next
        else { return fail("the reload tears b down") }
        #expect(batch.map(\.box.name) == ["b"])
        #expect(machine.values.kept[1] === a && machine.values.graph === newGraph)
        let done = machine.teardownFinished([])
        #expect(done.completed.first?.report.carriedOver == ["a"])
        #expect(done.completed.first?.report.invalidated == ["c"])
        guard case .launch(let next) = Self.start(&machine, 2) else { return fail("launch") }
        #expect(next.kept.count == 1 && next.kept[1] === a && next.graph === newGraph)
    }
}
