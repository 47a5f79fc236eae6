import ContainerTesting
import Foundation
import TestSupport
import Testing

@testable import Container

/// Drives the pure coordinator state machine with random event sequences, playing the storage's
/// part (running the nodes it starts, tearing down, carrying out its orders to scope instances
/// with plain values), and checks after every step its invariants plus what the storage relies
/// on: every waiter and operation answered exactly once, a node started only once its
/// dependencies have values and at most once per build, no teardown while a build runs, no
/// leased value torn down, every value torn down and reported exactly once.
///
/// `MACHINE_STEPS=N` sets the steps per seed (default 2,500, 50 seeds: 125,000 steps; a fifth
/// of that under ThreadSanitizer); `MACHINE_SEED=S` replays one seed.
@Suite("Coordinator state machine under random events")
struct StateMachineRandomTests {
    typealias Machine = CoordinatorStateMachine<Int, Int, Int>

    @Test("Random event sequences keep every invariant (100,000+ steps)")
    func randomEvents() async throws {
        let environment = ProcessInfo.processInfo.environment
        let underThreadSanitizer = ThreadSanitizerHooks.acquire != nil
        let steps = environment["MACHINE_STEPS"].flatMap(Int.init) ?? (underThreadSanitizer ? 500 : 2_500)
        let seeds = environment["MACHINE_SEED"].flatMap(UInt64.init).map { [$0] } ?? Array(1...50)
        for seed in seeds {
            var driver = try MachineDriver(seed: seed)
            let replay = "replay with MACHINE_SEED=\(seed)"
            guard try await drive(&driver, steps: steps, seed: seed, replay: replay, recent: 14) else { return }
        }
    }
}

/// Plays the storage for a ``CoordinatorStateMachine`` of plain values.
struct MachineDriver: SeededDriver {
    typealias Machine = StateMachineRandomTests.Machine

    var random: SplitMix64
    var machine: Machine
    var now: Duration = .zero
    var violations: [String] = []
    var history: [String] = []
    /// Waiters parked, answered (with how many times).
    var parked = Set<Int>()
    var answers: [Int: Int] = [:]
    var nextCaller = 1
    /// Operations started and completed (with how many times).
    var operations = Set<Int>()
    var completions: [Int: Int] = [:]
    var nextOperation = 1
    /// Graceful shutdowns waiting for their deadline.
    var draining: [Int] = []
    /// Nodes started and not finished: their build's ticket and launch.
    var running: [(ticket: BuildTicket, launch: NodeLaunch)] = []
    /// Nodes started per build (at most once each).
    var started: [Int: Set<Int>] = [:]
    var teardown: [Machine.Teardowns.Teardown]?
    /// How many reports listed each teardown (by ``token(_:)``).
    var reported: [String: Int] = [:]
    /// Every value made, and how often it was queued for teardown.
    var made: [ObjectIdentifier: (box: AnyServiceBox, teardowns: Int)] = [:]
    /// Orders to scope instances not carried out yet.
    var orders: [Machine.ChildOrder] = []
    /// Scope instances open (by id) and what they lease.
    var children: [Int: [AnyServiceBox]] = [:]
    var names = ["a", "b", "c", "d", "e"]

    init(seed: UInt64) throws {
        random = SplitMix64(seed: seed)
        let policy = BuildPolicy(
            failureMode: Int.random(in: 0..<4, using: &random) == 0 ? .failFast : .continueIndependent,
            maxAttempts: Bool.random(using: &random) ? Int.random(in: 1...4, using: &random) : nil,
            retryAfter: Bool.random(using: &random) ? RetryPolicy.Backoff(initialDelay: .seconds(1)) : .none)
        let tickets = TicketFactory(
            policy: policy, tuning: .default, tracer: Tracer(sinks: []), redactor: Redactor(), scopeInstance: nil,
            parameters: ScopeParameters())
        machine = Machine(declared: try Self.graph(names: names, random: &random), tickets: tickets)
    }

    static func graph(names: [String], random: inout SplitMix64) throws -> ServiceGraph {
        var specs: [ServiceSpec] = []
        for (index, name) in names.enumerated() {
            let dependencies = names[..<index].filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
            specs.append(ServiceSpec(ServiceKey<Int>(name), dependsOn: Array(dependencies)) { _ in index })
        }
        var scoped = ServiceSpec(ServiceKey<Int>("scoped"), dependsOn: [names[0]]) { _ in 0 }
        scoped.lifetime = .scope("s")
        specs.append(scoped)
        return try ServiceGraph(specs, scopes: ["s"])
    }

    mutating func fail(_ text: String) { violations.append(text) }

    /// A unique text per value, carried in its teardown record, to count the reports that list it.
    static func token(_ box: AnyServiceBox) -> String { "\(box.name)#\(box.sequence)" }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<24: request()
        case 24..<30: cancel()
        case 30..<54: finishNode()
        case 54..<64: finishTeardown()
        case 64..<69: reset()
        case 69..<72: reload()
        case 72..<74: shutdown()
        case 74..<76: deadline()
        case 76..<80: openChild()
        case 80..<84: leaseOrRelease()
        case 84..<90: carryOutOrder()
        default: now += .milliseconds(Int.random(in: 0...1_500, using: &random))
        }
        violations += machine.invariantViolations()
    }

    // MARK: Callers

    mutating func request() {
        let caller = nextCaller
        nextCaller += 1
        let cancelled = Int.random(in: 0..<10, using: &random) == 0
        let priority = UInt8([9, 17, 21, 25].randomElement(using: &random)!)
        let graph = machine.graph
        let key: Machine.Demands.Key =
            Bool.random(using: &random)
            ? .eager : .roots([Int.random(in: 0..<graph.builtCount, using: &random)])
        history.append("request \(caller) \(key)\(cancelled ? " cancelled" : "") p\(priority)")
        switch machine.requested(
            key, caller: caller, label: "c\(caller)", waiter: caller, priority: priority, isCancelled: cancelled,
            now: now)
        {
        case .answer(let waiter, let outcome):
            if case .cancelled = outcome, !cancelled { fail("caller \(caller) got cancelled without a cancellation") }
            if case .snapshot(let snapshot) = outcome { check(snapshot, holds: key) }
            answer(waiter)
        case .park(_, let start):
            if cancelled { fail("a cancelled caller was parked") }
            parked.insert(caller)
            follow(start)
        }
    }

    mutating func cancel() {
        guard
            let caller = (Bool.random(using: &random) ? parked.randomElement(using: &random) : nil)
                ?? answers.keys.randomElement(using: &random)
        else { return }
        history.append("cancel \(caller)")
        let wasParked = parked.contains(caller)
        switch machine.waiterCancelled(caller: caller) {
        case .none: if wasParked { fail("parked caller \(caller) was not resumed by its cancellation") }
        case .resume(let waiter): answer(waiter)
        }
    }

    /// A snapshot holds every service its request asked for, of the current generation.
    mutating func check(_ snapshot: AppServices, holds key: Machine.Demands.Key) {
        if snapshot.generation != machine.generation { fail("a snapshot of generation \(snapshot.generation)") }
        if case .eager = key, !snapshot.isComplete { fail("start() got an incomplete snapshot") }
    }

    // MARK: Nodes

    /// Ends a running node: it succeeds, fails (transiently or for good) or, when its build was
    /// cancelled, ends cancelled.
    mutating func finishNode() {
        guard !running.isEmpty else { return }
        let index = Int.random(in: 0..<running.count, using: &random)
        let (ticket, launch) = running.remove(at: index)
        let slot = launch.slot
        let node = ticket.graph.nodes[slot]
        if node.dependencies.contains(where: { ticket.info.values[$0] == nil }) {
            fail("\(node.name) started without its dependencies' values")
        }
        let kind = Int.random(in: 0..<6, using: &random)
        let result: NodeResult
        if ticket.isCancelled && Bool.random(using: &random) {
            result = NodeResult(
                slot: slot, status: .cancelledWhileRunning, box: nil, failure: nil, runs: 1, startedAt: now,
                endedAt: now)
        } else if kind < 4 {
            let box = ServiceBox(slot, name: node.name, builtIn: ticket.build, tearDown: { _ in })
            made[ObjectIdentifier(box)] = (box, 0)
            result = NodeResult(
                slot: slot, status: .succeeded, box: box, failure: nil, runs: 1, startedAt: now, endedAt: now)
        } else {
            let failure = NodeOutcome.Failure(
                kind: kind == 4 ? .transient : .permanent, message: "x", error: TestError())
            result = NodeResult(
                slot: slot, status: .failed, box: nil, failure: failure, runs: 1, startedAt: now, endedAt: now)
        }
        history.append("node \(node.name) of build \(ticket.id) ends \(result.status)")
        let action = machine.nodeFinished(build: ticket.id, result, now: now)
        resume(action.resume)
        for next in action.orders.launches { start(next, of: ticket) }
        if let lifecycle = action.then { follow(lifecycle) }
    }

    mutating func start(_ launch: NodeLaunch, of ticket: BuildTicket) {
        if teardown != nil { fail("a node started while a teardown runs") }
        if started[ticket.id, default: []].insert(launch.slot).inserted == false {
            fail("\(ticket.graph.nodes[launch.slot].name) started twice in build \(ticket.id)")
        }
        running.append((ticket, launch))
    }

    // MARK: Jobs

    mutating func finishTeardown() {
        guard let batch = teardown else { return }
        teardown = nil
        history.append("teardown of \(batch.count) ends")
        let records = batch.map { item in
            Machine.Teardowns.TeardownRecord(
                owner: item.owner,
                record: .init(
                    service: item.box.name, generation: item.box.builtInGeneration, error: Self.token(item.box)))
        }
        follow(machine.teardownFinished(records, now: now))
    }

    mutating func reset() {
        let operation = takeOperation()
        let slots: Set<Int>? =
            Bool.random(using: &random)
            ? nil : Set(machine.graph.nodes.indices.filter { _ in Bool.random(using: &random) })
        history.append("reset \(operation) \(slots.map { "\($0.sorted())" } ?? "all")")
        perform(machine.resetRequested(invalidating: slots, waiter: operation, now: now), operation: operation)
    }

    mutating func reload() {
        let old = machine.declared
        var newNames = names.filter { _ in Int.random(in: 0..<4, using: &random) != 0 }
        if Bool.random(using: &random) { newNames.append("n\(nextOperation)") }
        guard !newNames.isEmpty, let graph = try? Self.graph(names: newNames, random: &random) else { return }
        let operation = takeOperation()
        let changes = graph.changes(from: old)
        let plan = ReloadPlan(from: machine.graph, to: graph.appPart, changes: changes, inPlace: false)
        history.append("reload \(operation) to \(newNames): rebuilt \(changes.rebuilt)")
        perform(
            machine.reloadRequested(declared: graph, plan: plan, changes: changes, waiter: operation, now: now),
            operation: operation)
    }

    mutating func shutdown() {
        let operation = takeOperation()
        let graceful = Bool.random(using: &random)
        history.append("shutdown \(operation)\(graceful ? " graceful" : "")")
        switch machine.shutdownRequested(
            waiter: operation, graceful: graceful, error: .shutDown(generation: 0), now: now)
        {
        // A forwarded close reaches children that have their close order already (this model's
        // children end once, on it; a real one refuses the second close and reports nothing).
        case .refuse(let waiter, _, _): complete(waiter)
        case .drain(let id, let closing):
            draining.append(id)
            orders += closing
            follow(machine.shutdownTraced(now: now))
        case .proceed(let supersession, let lifecycle):
            supersede(supersession, lifecycle)
            follow(machine.shutdownTraced(now: now))
        }
    }

    mutating func deadline() {
        guard let operation = draining.popLast() else { return }
        history.append("deadline of \(operation)")
        deadline(operation: operation)
    }

    mutating func deadline(operation: Int) {
        if case .cancel(let supersession, let lifecycle) = machine.shutdownDeadlinePassed(
            operation: operation, now: now)
        {
            supersede(supersession, lifecycle)
        }
    }

    // MARK: Scope instances

    mutating func openChild() {
        let label = "s#\(nextCaller)"
        nextCaller += 1
        if case .opened(let id, let child) = machine.childOpened(scope: "s", label: label, make: { id, _, _ in id }) {
            if id != child { fail("child \(id) made as \(child)") }
            history.append("open child \(id)")
            children[id] = []
        }
    }

    /// A child leases some values of the generation, or releases what it leases.
    mutating func leaseOrRelease() {
        guard let id = children.keys.randomElement(using: &random) else { return }
        if Bool.random(using: &random), let leased = children[id], !leased.isEmpty {
            history.append("child \(id) releases \(leased.map(\.name))")
            children[id] = []
            follow(machine.childReleased(child: id, boxes: leased, now: now))
            return
        }
        let values = machine.state.values.slotsAndValues.filter { _ in Bool.random(using: &random) }
        guard !values.isEmpty else { return }
        let accepted = machine.leaseRequested(child: id, values: values) == .leased
        history.append("child \(id) leases \(values.map(\.box.name)): \(accepted)")
        if accepted { children[id, default: []] += values.map(\.box) }
    }

    /// Carries out one order to a child: it ends what it was asked (releasing what it leased).
    mutating func carryOutOrder() {
        guard !orders.isEmpty else { return }
        // Each of a child's steps reports from the thread that ran it: its ends come in any order.
        let order = orders.remove(at: Int.random(in: orders.indices, using: &random))
        let closed = order.order.isClose
        guard children[order.id] != nil else {
            // Closed already: a second close is refused and reports nothing (the first close's
            // end stood for it); any other order is refused with an empty report.
            history.append("child \(order.id) refuses order of \(order.operation): closed")
            if !closed {
                follow(
                    machine.childEnded(
                        child: order.id, reportedTo: order.operation, records: [], closed: false, now: now))
            }
            return
        }
        history.append("child \(order.id) ends order of \(order.operation)\(closed ? " (closed)" : "")")
        let leased = children[order.id] ?? []
        children[order.id] = closed ? nil : []
        if !leased.isEmpty { follow(machine.childReleased(child: order.id, boxes: leased, now: now)) }
        follow(
            machine.childEnded(child: order.id, reportedTo: order.operation, records: [], closed: closed, now: now))
    }

    /// Shuts down and runs every job to its end: then everyone must have been answered once.
    mutating func finish() {
        shutdown()
        for operation in draining { deadline(operation: operation) }
        var rounds = 0
        while !running.isEmpty || teardown != nil || !orders.isEmpty {
            rounds += 1
            if rounds > 10_000 { return fail("jobs never ended") }
            finishNode()
            finishTeardown()
            carryOutOrder()
        }
        for caller in parked { fail("caller \(caller) still parked") }
        for caller in answers.keys where answers[caller] != 1 {
            fail("caller \(caller) answered \(answers[caller] ?? 0) times")
        }
        for operation in operations where completions[operation] != 1 {
            fail("operation \(operation) completed \(completions[operation] ?? 0) times")
        }
        for (box, teardowns) in made.values where teardowns != 1 {
            fail("value of \(box.name) \(box.builtIn) queued for teardown \(teardowns) times")
        }
        for teardown in machine.teardowns.unreported { reported[teardown.error ?? "?", default: 0] += 1 }
        for (box, _) in made.values where reported[Self.token(box)] != 1 {
            fail("teardown of \(box.name) \(box.builtIn) reported \(reported[Self.token(box)] ?? 0) times")
        }
    }

    // MARK: The storage's part

    mutating func takeOperation() -> Int {
        defer { nextOperation += 1 }
        operations.insert(nextOperation)
        return nextOperation
    }

    mutating func answer(_ waiter: Int) {
        parked.remove(waiter)
        answers[waiter, default: 0] += 1
        if answers[waiter]! > 1 { fail("caller \(waiter) answered twice") }
    }

    mutating func resume(_ resumptions: [Machine.Resumption]) {
        for resumption in resumptions { resumption.waiters.forEach { answer($0) } }
    }

    mutating func complete(_ operation: Int) {
        completions[operation, default: 0] += 1
        if completions[operation]! > 1 { fail("operation \(operation) completed twice") }
    }

    mutating func follow(_ start: Machine.Start) {
        if let launch = start.launch { for next in launch.orders.launches { self.start(next, of: launch.ticket) } }
        if start.fetch != nil { fail("the app's build fetched app values") }
    }

    mutating func follow(_ lifecycle: Machine.Lifecycle) {
        for (waiter, report) in lifecycle.completed {
            complete(waiter)
            for teardown in report.tornDown { reported[teardown.error ?? "?", default: 0] += 1 }
        }
        if case .tearDown(let batch) = lifecycle.next {
            if !running.isEmpty && running.contains(where: { !$0.ticket.isCancelled }) {
                fail("a teardown started while a build runs")
            }
            if teardown != nil { fail("two teardown jobs at once") }
            teardown = batch
            for item in batch {
                let id = ObjectIdentifier(item.box)
                if made[id] == nil { fail("teardown of a value nobody made") } else { made[id]!.teardowns += 1 }
                if children.values.contains(where: { $0.contains { $0 === item.box } }) {
                    fail("\(item.box.name) torn down while a scope instance leases it")
                }
            }
        }
        follow(lifecycle.start)
    }

    mutating func supersede(_ supersession: Machine.Supersession, _ lifecycle: Machine.Lifecycle) {
        resume(supersession.resume)
        supersession.cancel?.cancel()
        orders += supersession.children
        follow(lifecycle)
    }

    mutating func perform(_ action: Machine.OperationAction, operation: Int) {
        switch action {
        // As a refused shutdown's: the children closing have their close order already.
        case .refuse(let waiter, _, _): complete(waiter)
        case .proceed(let supersession, let lifecycle): supersede(supersession, lifecycle)
        }
    }
}
