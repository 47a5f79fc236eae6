import TestSupport
import Testing

@testable import Container

/// The coordinator's state machine as a value: events in, actions out, no concurrency.
@Suite("Coordinator state machine as a value")
struct StateMachineTests {
    typealias Machine = CoordinatorStateMachine<String, String, Int>

    /// `a`, then `b` depending on `a`; `c` alone; `scoped` of scope `s` depending on `a`.
    static func machine(policy: BuildPolicy = .default) throws -> Machine {
        var scoped = ServiceSpec(ServiceKey<Int>("scoped"), dependsOn: ["a"]) { _ in 0 }
        scoped.lifetime = .scope("s")
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
                ServiceSpec(ServiceKey<Int>("c")) { _ in 3 },
                scoped,
            ], scopes: ["s"])
        return Machine(
            declared: graph,
            tickets: TicketFactory(
                policy: policy, tuning: .off, tracer: Tracer(sinks: []), redactor: Redactor(), scopeInstance: nil,
                parameters: ScopeParameters()))
    }

    static let a = 0, b = 1, c = 2

    /// A caller's request, with the defaults of an ordinary caller.
    static func request(
        _ machine: inout Machine, _ caller: Int, _ key: Machine.Demands.Key = .eager, priority: UInt8 = 21,
        cancelled: Bool = false, now: Duration = .zero
    ) -> Machine.RequestAction {
        machine.requested(
            key, caller: caller, label: "c\(caller)", waiter: "w\(caller)", priority: priority, isCancelled: cancelled,
            now: now)
    }

    /// The launches a request started, or a recorded issue.
    static func launched(_ action: Machine.RequestAction, sourceLocation: SourceLocation = #_sourceLocation) -> Machine
        .Launch?
    {
        guard case .park(_, let start) = action, let launch = start.launch else {
            Issue.record("expected the request to start nodes, got \(action)", sourceLocation: sourceLocation)
            return nil
        }
        return launch
    }

    static func succeeded(_ slot: Int, of ticket: BuildTicket) -> NodeResult {
        let box = ServiceBox(slot, name: ticket.graph.nodes[slot].name, builtIn: ticket.build, tearDown: { _ in })
        return NodeResult(
            slot: slot, status: .succeeded, box: box, failure: nil, runs: 1, startedAt: .zero, endedAt: .zero)
    }

    static func failed(_ slot: Int, _ kind: FailureKind) -> NodeResult {
        NodeResult(
            slot: slot, status: .failed, box: nil,
            failure: NodeOutcome.Failure(kind: kind, message: "x", error: TestError()),
            runs: 1, startedAt: .zero, endedAt: .zero)
    }

    static func slots(_ orders: WorkerOrders) -> [Int] { orders.launches.map(\.slot) }

    static func waiters(_ resumptions: [Machine.Resumption]) -> [String] { resumptions.flatMap(\.waiters) }

    static func expectValid(_ machine: Machine, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            machine.invariantViolations().isEmpty, "\(machine.invariantViolations())", sourceLocation: sourceLocation)
    }

    @Test(
        "The first request launches what can start; a node's end starts its dependents; success answers everyone once")
    func requestJoinPublish() throws {
        var machine = try Self.machine()
        guard let launch = Self.launched(Self.request(&machine, 1)) else { return }
        #expect(Self.slots(launch.orders) == [Self.a, Self.c], "the nodes without dependencies, in graph order")
        #expect(launch.ticket.build == BuildAttempt(generation: 1, attempt: 1))
        guard case .park(nil, let start) = Self.request(&machine, 2), start.launch == nil else {
            return fail("the second caller joins the same demand, starting nothing")
        }
        Self.expectValid(machine)
        let afterA = machine.nodeFinished(
            build: launch.ticket.id, Self.succeeded(Self.a, of: launch.ticket), now: .zero)
        #expect(Self.slots(afterA.orders) == [Self.b], "b starts in the worker that ran a")
        #expect(afterA.resume.isEmpty && afterA.then == nil)
        _ = machine.nodeFinished(build: launch.ticket.id, Self.succeeded(Self.b, of: launch.ticket), now: .zero)
        let done = machine.nodeFinished(build: launch.ticket.id, Self.succeeded(Self.c, of: launch.ticket), now: .zero)
        #expect(Self.waiters(done.resume) == ["w1", "w2"], "in arrival order, once")
        guard case .snapshot(let snapshot)? = done.resume.first?.outcome else { return fail("success publishes") }
        #expect(snapshot.isComplete && machine.snapshot === snapshot && done.then != nil)
        Self.expectValid(machine)
        guard case .answer("w3", .snapshot(let same)) = Self.request(&machine, 3) else {
            return fail("ready answers at once")
        }
        #expect(same === snapshot)
    }

    @Test("A request for some services builds only their closure, and a later one adds to the build in flight")
    func closuresGrowTheBuild() throws {
        var machine = try Self.machine()
        guard let first = Self.launched(Self.request(&machine, 1, .roots([Self.b]))) else { return }
        #expect(Self.slots(first.orders) == [Self.a], "b's closure: a first")
        // c is not in b's closure: a request for it adds it to the same build, started at once.
        guard let second = Self.launched(Self.request(&machine, 2, .roots([Self.c]))) else { return }
        #expect(second.ticket === first.ticket && Self.slots(second.orders) == [Self.c])
        let afterC = machine.nodeFinished(build: first.ticket.id, Self.succeeded(Self.c, of: first.ticket), now: .zero)
        #expect(Self.waiters(afterC.resume) == ["w2"], "c's caller is answered without waiting for b")
        guard case .snapshot(let partial)? = afterC.resume.first?.outcome else { return fail("a snapshot") }
        #expect(!partial.isComplete && partial.contains("c"))
        _ = machine.nodeFinished(build: first.ticket.id, Self.succeeded(Self.a, of: first.ticket), now: .zero)
        let afterB = machine.nodeFinished(build: first.ticket.id, Self.succeeded(Self.b, of: first.ticket), now: .zero)
        #expect(Self.waiters(afterB.resume) == ["w1"])
        Self.expectValid(machine)
    }

    @Test("A waiter cancelled before completion is resumed once, and not again by completion")
    func cancelBeforeCompletion() throws {
        var machine = try Self.machine()
        guard let launch = Self.launched(Self.request(&machine, 1, .roots([Self.c]))) else { return }
        guard case .resume("w1") = machine.waiterCancelled(caller: 1) else { return fail("resumed at once") }
        guard case .none = machine.waiterCancelled(caller: 1) else { return fail("exactly once") }
        let done = machine.nodeFinished(build: launch.ticket.id, Self.succeeded(Self.c, of: launch.ticket), now: .zero)
        #expect(done.resume.isEmpty, "nobody left to answer; the build still ends")
        #expect(done.then != nil && machine.build == nil)
    }

    @Test("A caller already cancelled gets the snapshot or failure when there is one, never starts a build")
    func alreadyCancelledCaller() throws {
        var machine = try Self.machine()
        guard case .answer("w1", .cancelled) = Self.request(&machine, 1, cancelled: true) else {
            return fail("idle: cancelled at once")
        }
        #expect(machine.build == nil, "a cancelled caller must not start a build")
    }

    @Test("A transient failure keeps what succeeded; the next request rebuilds only what failed, as attempt 2")
    func transientFailureKeepsValues() throws {
        var machine = try Self.machine()
        guard let launch = Self.launched(Self.request(&machine, 1)) else { return }
        let ticket = launch.ticket
        _ = machine.nodeFinished(build: ticket.id, Self.succeeded(Self.c, of: ticket), now: .zero)
        let failed = machine.nodeFinished(build: ticket.id, Self.failed(Self.a, .transient), now: .zero)
        guard case .failure(let error)? = failed.resume.first?.outcome else {
            return fail("the caller gets the failure")
        }
        #expect(error.code == .buildFailed && error.failure == .transient)
        #expect(error.report?.outcome(of: "b") == .skipped(because: ["a"]))
        #expect(machine.state.hasValue(Self.c) && machine.attempt == 2)
        guard let retry = Self.launched(Self.request(&machine, 2)) else { return }
        #expect(retry.ticket.build == BuildAttempt(generation: 1, attempt: 2))
        #expect(Self.slots(retry.orders) == [Self.a], "c is kept, b waits for a")
        Self.expectValid(machine)
    }

    @Test("A permanent failure is sticky for the requests that need it; others still succeed")
    func permanentIsStickyPerRequest() throws {
        var machine = try Self.machine()
        guard let launch = Self.launched(Self.request(&machine, 1)) else { return }
        let ticket = launch.ticket
        _ = machine.nodeFinished(build: ticket.id, Self.failed(Self.a, .permanent), now: .zero)
        _ = machine.nodeFinished(build: ticket.id, Self.succeeded(Self.c, of: ticket), now: .zero)
        guard case .answer(_, .failure(let sticky)) = Self.request(&machine, 2) else { return fail("sticky at once") }
        #expect(sticky.failure == .permanent)
        guard case .answer(_, .failure) = Self.request(&machine, 3, .roots([Self.b])) else {
            return fail("b needs a: sticky too")
        }
        #expect(machine.build == nil, "no build for a sticky failure")
    }

    @Test("retryAfter: a request before the next allowed attempt gets the last failure; after it, a build")
    func backoff() throws {
        var machine = try Self.machine(policy: BuildPolicy(retryAfter: RetryPolicy.Backoff(initialDelay: .seconds(1))))
        guard let launch = Self.launched(Self.request(&machine, 1, .roots([Self.a]))) else { return }
        _ = machine.nodeFinished(build: launch.ticket.id, Self.failed(Self.a, .transient), now: .zero)
        guard case .answer(_, .failure) = Self.request(&machine, 2, .roots([Self.a]), now: .milliseconds(500)) else {
            return fail("too soon: the last failure at once")
        }
        #expect(machine.status(openScopes: [], now: .milliseconds(500)).state == .waiting)
        #expect(machine.status(openScopes: [], now: .milliseconds(500)).nextAttemptAt == .seconds(1))
        // Once the time has come, start() would build at once: nothing to wait for.
        #expect(machine.status(openScopes: [], now: .seconds(1)).state == .idle)
        #expect(Self.launched(Self.request(&machine, 3, .roots([Self.a]), now: .seconds(1))) != nil)
    }

    @Test("maxAttempts bounds the attempts of each node: the last failed attempt is sticky, exhausted")
    func attemptBudget() throws {
        var machine = try Self.machine(policy: BuildPolicy(maxAttempts: 2))
        for attempt in 1...2 {
            guard let launch = Self.launched(Self.request(&machine, attempt, .roots([Self.a]))) else { return }
            let done = machine.nodeFinished(build: launch.ticket.id, Self.failed(Self.a, .transient), now: .zero)
            guard case .failure(let error)? = done.resume.first?.outcome else { return fail("failure") }
            #expect(error.code == (attempt == 2 ? .attemptsExhausted : .buildFailed))
        }
        guard case .answer(_, .failure(let error)) = Self.request(&machine, 3, .roots([Self.a])) else {
            return fail("exhausted: at once")
        }
        #expect(error.code == .attemptsExhausted)
        #expect(Self.launched(Self.request(&machine, 4, .roots([Self.c]))) != nil, "c has its own budget")
    }

    @Test("A reset supersedes the build: its callers get superseded, its late values go to the reset's teardown")
    func resetSupersedesTheBuild() throws {
        var machine = try Self.machine()
        guard let launch = Self.launched(Self.request(&machine, 1)) else { return }
        guard
            case .proceed(let supersession, let lifecycle) = machine.resetRequested(
                invalidating: nil, waiter: "r", now: .zero)
        else { return fail("a reset proceeds") }
        #expect(Self.waiters(supersession.resume) == ["w1"] && supersession.cancel === launch.ticket)
        #expect(lifecycle.completed.isEmpty, "the reset waits for the superseded build")
        #expect(machine.generation == 2 && machine.stopping != nil)
        // A request of generation 2 waits for the superseded build to stop (no overlap).
        guard case .park(_, let start) = Self.request(&machine, 2), start.launch == nil else {
            return fail("parks without launching")
        }
        let late = machine.nodeFinished(build: launch.ticket.id, Self.succeeded(Self.a, of: launch.ticket), now: .zero)
        #expect(late.orders.launches.isEmpty, "a superseded build starts nothing more")
        let last = machine.nodeFinished(
            build: launch.ticket.id, NodeResult.cancelledBeforeStart(Self.c, at: .zero), now: .zero)
        let ended = try #require(last.then, "the superseded build ended with its last node")
        guard case .tearDown(let batch) = ended.next else { return fail("the late value is torn down first") }
        #expect(batch.map(\.box.name) == ["a"] && batch.first?.owner == 1)
        let after = machine.teardownFinished([], now: .zero)
        #expect(after.completed.map(\.waiter) == ["r"], "then the reset completes")
        #expect(
            after.start.launch?.ticket.build == BuildAttempt(generation: 2, attempt: 1), "and generation 2 launches")
        Self.expectValid(machine)
    }

    /// A machine whose `a` is built and leased by child `s#1`: the machine, the child's id and `a`'s value.
    static func childLeasingA(
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (Machine, child: Int, value: AnyServiceBox)? {
        var machine = try machine()
        guard let launch = launched(request(&machine, 1, .roots([a])), sourceLocation: sourceLocation) else {
            return nil
        }
        _ = machine.nodeFinished(build: launch.ticket.id, succeeded(a, of: launch.ticket), now: .zero)
        guard case .opened(let child, _) = machine.childOpened(scope: "s", label: "s#1", make: { id, _, _ in id })
        else {
            Issue.record("the child opens", sourceLocation: sourceLocation)
            return nil
        }
        let value = try #require(machine.state.values[a], sourceLocation: sourceLocation)
        let leased = machine.leaseRequested(child: child, values: [(a, value)])
        #expect(leased == .leased, sourceLocation: sourceLocation)
        return (machine, child, value)
    }

    @Test(
        "A retired value a child leases is torn down only after the child released it; the child is superseded at once")
    func leasedValuesWaitForTheirChild() throws {
        guard case (var machine, let child, let value)? = try Self.childLeasingA() else { return }
        guard
            case .proceed(let supersession, let lifecycle) = machine.resetRequested(
                invalidating: [Self.a], waiter: "r", now: .zero)
        else { return fail("proceeds") }
        #expect(supersession.children.map(\.id) == [child], "the holder is superseded in the same transition")
        guard case .none = lifecycle.next else { return fail("the leased value waits") }
        // A lease of the retired value now is refused: the child must fetch the new generation's.
        let leasedAgain = machine.leaseRequested(child: child, values: [(Self.a, value)])
        #expect(leasedAgain == .refused)
        let released = machine.childReleased(child: child, boxes: [value], now: .zero)
        guard case .tearDown(let batch) = released.next else { return fail("then it is torn down") }
        #expect(batch.map(\.box.name) == ["a"])
        let torn = machine.teardownFinished([], now: .zero)
        #expect(torn.completed.isEmpty, "the reset also waits for the child's report")
        let reported = machine.childEnded(
            child: child, reportedTo: 1, records: [.init(service: "scoped", generation: 1, error: nil, scope: "s#1")],
            closed: false, now: .zero)
        #expect(reported.completed.map(\.report.tornDown.first?.service) == ["scoped"], "scoped teardowns first")
    }

    @Test("A reset waiting for a child's report completes when the child reports, though the next build runs")
    func resetCompletesBesideTheNextBuild() throws {
        guard case (var machine, let child, let value)? = try Self.childLeasingA() else { return }
        guard case .proceed = machine.resetRequested(invalidating: [Self.a], waiter: "r", now: .zero) else {
            return fail("proceeds")
        }
        _ = machine.childReleased(child: child, boxes: [value], now: .zero)
        let torn = machine.teardownFinished([], now: .zero)
        #expect(torn.completed.isEmpty, "the reset waits for the child's report")
        // Meanwhile a caller launches generation 2's build, whose node may run for any time.
        guard let next = Self.launched(Self.request(&machine, 2, .roots([Self.c]))) else { return }
        #expect(next.ticket.build == BuildAttempt(generation: 2, attempt: 1))
        let reported = machine.childEnded(child: child, reportedTo: 1, records: [], closed: false, now: .zero)
        #expect(reported.completed.map(\.waiter) == ["r"], "the reset does not wait for a build it did not start")
        guard case .none = reported.next else { return fail("no teardown starts while the build runs") }
        #expect(reported.start.launch == nil)
        Self.expectValid(machine)
    }

    @Test("A child's report to a reset reaches the reset's report though the child's close was heard first")
    func reportAfterTheClose() throws {
        guard case (var machine, let child, let value)? = try Self.childLeasingA() else { return }
        var completed: [(waiter: String, report: ServiceContainer.ResetReport)] = []
        guard
            case .proceed(let reset, _) = machine.resetRequested(invalidating: [Self.a], waiter: "r", now: .zero)
        else { return fail("the reset proceeds") }
        guard
            case .proceed(let shutdown, _) = machine.shutdownRequested(
                waiter: "s", graceful: false, error: .shutDown(generation: 2), now: .zero)
        else { return fail("the shutdown proceeds") }
        #expect(reset.children.map(\.operation) == [1] && shutdown.children.map(\.operation) == [2])
        completed += machine.shutdownTraced(now: .zero).completed
        completed += machine.childReleased(child: child, boxes: [value], now: .zero).completed
        completed += machine.teardownFinished([], now: .zero).completed
        // The child accepted the reset's order, then its close: each of its steps reports from
        // the thread that ran it, so its close may reach this coordinator before its reset does.
        completed += machine.childEnded(child: child, reportedTo: 2, records: [], closed: true, now: .zero).completed
        #expect(!completed.map(\.waiter).contains("r"), "the reset waits for the report of its own order")
        let scoped = ServiceContainer.ResetReport.Teardown(service: "x", generation: 1, error: nil, scope: "s#1")
        completed +=
            machine.childEnded(child: child, reportedTo: 1, records: [scoped], closed: false, now: .zero)
            .completed
        #expect(completed.map(\.waiter) == ["r", "s"])
        #expect(completed.first?.report.tornDown.first?.service == "x", "the child's teardown is the reset's")
        #expect(machine.status(openScopes: [], now: .zero).unreportedTeardowns.isEmpty)
        Self.expectValid(machine)
    }

    @Test("The debug summary says the phase, the build, the operations waiting and the children")
    func debugSummary() throws {
        var machine = try Self.machine()
        guard Self.launched(Self.request(&machine, 1, .roots([Self.a]))) != nil else { return }
        guard case .opened = machine.childOpened(scope: "s", label: "s#1", make: { id, _, _ in id }) else {
            return fail("opens")
        }
        let lines = machine.debugSummary.split(separator: "\n").map(String.init)
        #expect(lines.first == "app g1 a1 open", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  build: 1 g1 a1 launched true running 1 ") }, "\(lines)")
        #expect(lines.contains("  requests waiting"))
        #expect(lines.contains("  teardowns: running false, queued 0, operations []"))
        #expect(lines.contains("  child 1 s#1 open leases 0"))
    }

    @Test("A child that a reload or a graceful shutdown closes is refused its lease as closing")
    func leaseOfAClosingChild() throws {
        var machine = try Self.machine()
        guard let launch = Self.launched(Self.request(&machine, 1, .roots([Self.a]))) else { return }
        _ = machine.nodeFinished(build: launch.ticket.id, Self.succeeded(Self.a, of: launch.ticket), now: .zero)
        guard case .opened(let child, _) = machine.childOpened(scope: "s", label: "s#1", make: { id, _, _ in id })
        else {
            return fail("opens")
        }
        let value = try #require(machine.state.values[Self.a])
        // The same app services without scope `s`: the reload closes its open child.
        let graph = try ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
                ServiceSpec(ServiceKey<Int>("c")) { _ in 3 },
            ])
        let changes = graph.changes(from: machine.declared)
        let plan = ReloadPlan(from: machine.graph, to: graph.appPart, changes: changes, inPlace: false)
        guard
            case .proceed(let supersession, _) = machine.reloadRequested(
                declared: graph, plan: plan, changes: changes, waiter: "r", now: .zero)
        else { return fail("the reload proceeds") }
        #expect(supersession.children.map(\.id) == [child])
        // Until the close reaches it, the child may still ask for a value it fetched: it is told
        // it is closing (its fetch then waits for the close), not to fetch again.
        #expect(machine.leaseRequested(child: child, values: [(Self.a, value)]) == .childClosing)

        var shuttingDown = try Self.machine()
        guard case .opened(let other, _) = shuttingDown.childOpened(scope: "s", label: "s#1", make: { id, _, _ in id })
        else {
            return fail("opens")
        }
        // Graceful: the build goes on, and the snapshot stays, but every child is told to close.
        _ = shuttingDown.shutdownRequested(waiter: "s", graceful: true, error: .shutDown(generation: 1), now: .zero)
        #expect(shuttingDown.leaseRequested(child: other, values: []) == .childClosing)
    }

    @Test("A shutdown refuses every call from its first transition and closes every child")
    func shutdownRefusesAtOnce() throws {
        var machine = try Self.machine()
        guard case .opened(let child, _) = machine.childOpened(scope: "s", label: "s#1", make: { id, _, _ in id })
        else {
            return fail("opens")
        }
        guard
            case .proceed(let supersession, _) = machine.shutdownRequested(
                waiter: "s", graceful: false, error: .shutDown(generation: 1), now: .zero)
        else { return fail("proceeds") }
        #expect(supersession.children.map(\.id) == [child])
        guard case .answer(_, .failure(let error)) = Self.request(&machine, 1) else { return fail("refused") }
        #expect(error.code == .shutDown)
        guard case .refuse(_, _, _) = machine.resetRequested(invalidating: nil, waiter: "r", now: .zero) else {
            return fail("a reset is refused")
        }
        guard
            case .refuse(_, _, let forwarded) = machine.shutdownRequested(
                waiter: "s2", graceful: false, error: .shutDown(generation: 1), now: .zero)
        else { return fail("a second shutdown is refused at once") }
        // The first close may not have reached the child yet: the refused one passes it on, for
        // the shutdown in progress, so the child refuses calls once the refused close returns.
        #expect(forwarded.map(\.id) == [child])
        #expect(forwarded.map(\.operation) == supersession.children.map(\.operation))
        guard case .refused = machine.childOpened(scope: "s", label: "s#2", make: { id, _, _ in id }) else {
            return fail("no child opens")
        }
        _ = machine.childEnded(child: child, reportedTo: forwarded[0].operation, records: [], closed: true, now: .zero)
        guard
            case .refuse(_, _, let forwardedAfter) = machine.shutdownRequested(
                waiter: "s3", graceful: false, error: .shutDown(generation: 1), now: .zero)
        else { return fail("a third shutdown is refused at once") }
        #expect(forwardedAfter.isEmpty, "a closed child is not told again")
    }

    @Test("A graceful shutdown lets the build finish; its last allowed attempt failing answers exhausted, traced")
    func drainedLastAttempt() throws {
        var machine = try Self.machine(policy: BuildPolicy(maxAttempts: 1))
        guard let launch = Self.launched(Self.request(&machine, 1, .roots([Self.c]))) else { return }
        guard
            case .drain(let operation, _) = machine.shutdownRequested(
                waiter: "s", graceful: true, error: .shutDown(generation: 1), now: .zero)
        else { return fail("drains") }
        let done = machine.nodeFinished(build: launch.ticket.id, Self.failed(Self.c, .transient), now: .zero)
        guard case .failure(let error)? = done.resume.first?.outcome else { return fail("the caller gets the failure") }
        #expect(error.code == .attemptsExhausted, "not a plain transient failure: no attempt is left")
        guard case .none = machine.shutdownDeadlinePassed(operation: operation, now: .zero) else {
            return fail("the deadline finds the build over")
        }
    }
}
