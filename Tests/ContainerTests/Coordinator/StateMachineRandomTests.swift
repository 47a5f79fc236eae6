import ContainerTesting
import Foundation
import TestSupport
import Testing

@testable import Container

/// Drives the pure coordinator state machine with random event sequences, playing the storage's
/// part (launching, finishing and tearing down with plain values), and checks after every step
/// its invariants plus what the storage relies on: every waiter and operation answered exactly
/// once, one job at a time, every value torn down exactly once.
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
            guard try await drive(&driver, steps: steps, seed: seed, replay: replay, recent: 12) else { return }
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
    /// The job in flight.
    var build: Machine.BuildTicket?
    var teardown: [Machine.Jobs.Teardown]?
    var nextHandle = 1
    /// How many reports listed each teardown (by ``token(_:)``).
    var reported: [String: Int] = [:]
    /// Every value made, and how often it was queued for teardown.
    var made: [ObjectIdentifier: (box: AnyServiceBox, teardowns: Int)] = [:]
    var names = ["a", "b", "c", "d"]

    init(seed: UInt64) throws {
        random = SplitMix64(seed: seed)
        let policy = BuildPolicy(
            maxAttempts: Bool.random(using: &random) ? Int.random(in: 1...4, using: &random) : nil,
            retryAfter: Bool.random(using: &random) ? Backoff(initialDelay: .seconds(1)) : .none)
        machine = Machine(graph: try Self.graph(names: names, random: &random), policy: policy)
    }

    static func graph(names: [String], random: inout SplitMix64) throws -> ServiceGraph {
        var specs: [ServiceSpec] = []
        for (index, name) in names.enumerated() {
            let dependencies = names[..<index].filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
            specs.append(ServiceSpec(ServiceKey<Int>(name), dependsOn: Array(dependencies)) { _ in index })
        }
        return try ServiceGraph(specs)
    }

    mutating func fail(_ text: String) { violations.append(text) }

    /// A unique text per value, carried in its teardown record, to count the reports that list it.
    static func token(_ box: AnyServiceBox) -> String { "\(box.name)#\(box.sequence)" }

    mutating func step() {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30: start()
        case 30..<38: cancel()
        case 38..<58: finishBuild()
        case 58..<72: finishTeardown()
        case 72..<78: reset()
        case 78..<81: reload()
        case 81..<83: shutdown()
        case 83..<86: deadline()
        default: now += .milliseconds(Int.random(in: 0...1_500, using: &random))
        }
        violations += machine.invariantViolations()
    }

    // MARK: Events

    mutating func start() {
        let caller = nextCaller
        nextCaller += 1
        let cancelled = Int.random(in: 0..<10, using: &random) == 0
        let priority = UInt8([9, 17, 21, 25].randomElement(using: &random)!)
        history.append("start \(caller)\(cancelled ? " cancelled" : "") p\(priority)")
        switch machine.startRequested(
            caller: caller, label: "c\(caller)", waiter: caller, priority: priority, isCancelled: cancelled, now: now)
        {
        case .answer(let waiter, let outcome):
            if case .cancelled = outcome, !cancelled { fail("caller \(caller) got cancelled without a cancellation") }
            answer(waiter)
        case .park:
            if cancelled { fail("a cancelled caller was parked") }
            parked.insert(caller)
        case .escalate(let handle, let raised):
            parked.insert(caller)
            if raised != priority { fail("escalated to \(raised), the caller has \(priority)") }
            if handle != currentHandle {
                fail("escalated handle \(handle), in flight \(String(describing: currentHandle))")
            }
        case .launch(let ticket):
            parked.insert(caller)
            launch(ticket)
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

    mutating func finishBuild() {
        guard let ticket = build else { return }
        build = nil
        let graph = ticket.graph
        let kind = Int.random(in: 0..<4, using: &random)  // 0, 1: success; 2: transient; 3: permanent
        var built: [Int: AnyServiceBox] = [:]
        var values: [AnyServiceBox?] = graph.nodes.indices.map { ticket.kept[$0] }
        var outcomes: [NodeOutcome] = []
        for slot in graph.topologicalOrder {
            if ticket.kept[slot] != nil {
                continue
            }
            let fails = kind >= 2 && Bool.random(using: &random)
            if !fails && graph.nodes[slot].dependencies.allSatisfy({ values[$0] != nil }) {
                let box = ServiceBox(slot, name: graph.nodes[slot].name, builtIn: ticket.build, tearDown: { _ in })
                made[ObjectIdentifier(box)] = (box, 0)
                built[slot] = box
                values[slot] = box
            }
        }
        for slot in graph.nodes.indices {
            if ticket.kept[slot] != nil {
                outcomes.append(.reused)
            } else if values[slot] != nil {
                outcomes.append(.succeeded(duration: .zero))
            } else {
                let failure: FailureKind = kind == 3 ? .permanent : .transient
                outcomes.append(.failed(NodeFailure(kind: failure, message: "x", error: TestError())))
            }
        }
        let report = BuildReport(
            generation: ticket.build.generation, attempt: ticket.build.attempt,
            nodes: zip(graph.serviceNames, outcomes).map {
                .init(name: $0, outcome: $1, runs: 1, startedAt: nil, endedAt: nil)
            }, startedAt: .zero, endedAt: .zero, wasCancelled: false)
        history.append("build \(ticket.id) ends \(report.succeeded ? "ok" : "\(report.failure!)")")
        switch machine.buildFinished(
            id: ticket.id, result: BuildResult(report: report, built: built, values: values), now: now)
        {
        case .publish(let snapshot, let waiters, let lifecycle):
            if snapshot.generation != machine.generation { fail("published generation \(snapshot.generation)") }
            waiters.forEach { answer($0) }
            follow(lifecycle)
        case .fail(_, let waiters, let lifecycle), .drained(_, let waiters, let lifecycle):
            waiters.forEach { answer($0) }
            follow(lifecycle)
        case .discard(let lifecycle):
            follow(lifecycle)
        }
    }

    mutating func finishTeardown() {
        guard let batch = teardown else { return }
        teardown = nil
        history.append("teardown of \(batch.count) ends")
        let records = batch.map { item in
            Machine.Jobs.TeardownRecord(
                owner: item.owner,
                record: .init(
                    service: item.box.name, generation: item.box.builtInGeneration, error: Self.token(item.box)))
        }
        follow(machine.teardownFinished(records))
    }

    mutating func reset() {
        let operation = takeOperation()
        let slots: Set<Int>? =
            Bool.random(using: &random)
            ? nil : Set(machine.values.graph.nodes.indices.filter { _ in Bool.random(using: &random) })
        history.append("reset \(operation) \(slots.map { "\($0.sorted())" } ?? "all")")
        perform(machine.resetRequested(invalidating: slots, waiter: operation), operation: operation)
    }

    mutating func reload() {
        let old = machine.values.graph
        var newNames = old.serviceNames.filter { _ in Int.random(in: 0..<4, using: &random) != 0 }
        if Bool.random(using: &random) { newNames.append("n\(nextOperation)") }
        guard !newNames.isEmpty, let graph = try? Self.graph(names: newNames, random: &random) else { return }
        let operation = takeOperation()
        // Carry the values of services that kept their name and whose dependencies carry over.
        var carrying: [Int: Int] = [:]
        for slot in graph.topologicalOrder where Bool.random(using: &random) {
            let name = graph.nodes[slot].name
            guard let oldSlot = old.layout.slots[name],
                graph.nodes[slot].dependencies.allSatisfy({ carrying[$0] != nil })
            else { continue }
            carrying[slot] = oldSlot
        }
        history.append("reload \(operation) to \(newNames) carrying \(carrying)")
        let change = GenerationChange(
            from: machine.generation, to: machine.generation + 1, invalidated: nil, reason: .reload)
        var fromOld = [Int](repeating: -1, count: graph.nodes.count)
        for (slot, oldSlot) in carrying { fromOld[slot] = oldSlot }
        perform(
            machine.reloadRequested(graph: graph, carrying: fromOld, change: change, waiter: operation),
            operation: operation)
    }

    mutating func shutdown() {
        let operation = takeOperation()
        let graceful = Bool.random(using: &random)
        history.append("shutdown \(operation)\(graceful ? " graceful" : "")")
        switch machine.shutdownRequested(waiter: operation, graceful: graceful, error: .shutDown(generation: 0)) {
        case .refuse(let waiter, _): complete(waiter)
        case .drain(let id): draining.append(id)
        case .proceed(let supersession, let lifecycle): supersede(supersession, lifecycle)
        }
    }

    mutating func deadline() {
        guard let operation = draining.popLast() else { return }
        history.append("deadline of \(operation)")
        if case .cancel(let supersession, let lifecycle) = machine.shutdownDeadlinePassed(operation: operation) {
            supersede(supersession, lifecycle)
        }
    }

    /// Shuts down and runs every job to its end: then everyone must have been answered once.
    mutating func finish() {
        shutdown()
        for operation in draining { deadline(operation: operation) }
        var guardCount = 0
        while build != nil || teardown != nil {
            guardCount += 1
            if guardCount > 100 { return fail("jobs never ended") }
            finishBuild()
            finishTeardown()
        }
        for caller in 1..<nextCaller where answers[caller] != 1 {
            fail("caller \(caller) answered \(answers[caller] ?? 0) times")
        }
        for operation in operations where completions[operation] != 1 {
            fail("operation \(operation) completed \(completions[operation] ?? 0) times")
        }
        for (box, teardowns) in made.values where teardowns != 1 {
            fail("value of \(box.name) \(box.builtIn) queued for teardown \(teardowns) times")
        }
        for teardown in machine.unreportedTeardowns { reported[teardown.error ?? "?", default: 0] += 1 }
        for (box, _) in made.values where reported[Self.token(box)] != 1 {
            fail("teardown of \(box.name) \(box.builtIn) reported \(reported[Self.token(box)] ?? 0) times")
        }
    }

    mutating func deadline(operation: Int) {
        if case .cancel(let supersession, let lifecycle) = machine.shutdownDeadlinePassed(operation: operation) {
            supersede(supersession, lifecycle)
        }
    }

    // MARK: The storage's part

    var currentHandle: Int?

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

    mutating func complete(_ operation: Int) {
        completions[operation, default: 0] += 1
        if completions[operation]! > 1 { fail("operation \(operation) completed twice") }
    }

    mutating func launch(_ ticket: Machine.BuildTicket) {
        if build != nil || teardown != nil { fail("build \(ticket.id) launched while a job is in flight (rule 8)") }
        build = ticket
        currentHandle = nextHandle
        machine.buildLaunched(id: ticket.id, handle: nextHandle)
        nextHandle += 1
    }

    mutating func follow(_ lifecycle: Machine.Lifecycle) {
        for (waiter, report) in lifecycle.completed {
            complete(waiter)
            for teardown in report.tornDown { reported[teardown.error ?? "?", default: 0] += 1 }
        }
        switch lifecycle.next {
        case .none: break
        case .launch(let ticket): launch(ticket)
        case .tearDown(let batch):
            if build != nil || teardown != nil { fail("teardown started while a job is in flight (rule 8)") }
            teardown = batch
            for item in batch {
                let id = ObjectIdentifier(item.box)
                if made[id] == nil { fail("teardown of a value nobody made") } else { made[id]!.teardowns += 1 }
            }
        }
    }

    mutating func supersede(_ supersession: Machine.Supersession, _ lifecycle: Machine.Lifecycle) {
        supersession.resume.forEach { answer($0) }
        if let handle = supersession.cancel, handle != currentHandle {
            fail("cancelled handle \(handle) is not in flight")
        }
        follow(lifecycle)
    }

    mutating func perform(_ action: Machine.OperationAction, operation: Int) {
        switch action {
        case .refuse(let waiter, _): complete(waiter)
        case .proceed(let supersession, let lifecycle): supersede(supersession, lifecycle)
        }
    }
}
