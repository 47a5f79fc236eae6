import TestSupport
import Testing

@testable import Container

/// The coordinator's state machine as a value: events in, effects out, no concurrency (STYLE rule 12).
@Suite("Coordinator state machine as a value")
struct StateMachineTests {
    typealias Machine = CoordinatorStateMachine<String, String, Int>

    private func graph() throws -> ServiceGraph {
        try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
        ])
    }

    private func box(_ slot: Int, _ name: String, generation: Int = 1) -> AnyServiceBox {
        ServiceBox(slot, name: name, slot: slot, builtInGeneration: generation, builtInAttempt: 1, tearDown: { _ in })
    }

    private func result(
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

    private func waiters(_ effects: Machine.Effects) -> [String] { effects.resumptions.map(\.waiter) }

    @Test("The first caller launches a build; later callers join it; success resumes everyone once")
    func startJoinPublish() throws {
        var machine = Machine(graph: try graph())
        let first = machine.allocateCaller()
        let effects = machine.startRequested(caller: first, label: "launch", waiter: "w1")
        let ticket = try #require(effects.launch)
        #expect(ticket.generation == 1 && ticket.attempt == 1 && ticket.kept.isEmpty)
        machine.buildLaunched(id: ticket.id, handle: 99)

        let second = machine.allocateCaller()
        let joined = machine.startRequested(caller: second, label: "scene", waiter: "w2")
        #expect(joined.launch == nil && joined.resumptions.isEmpty)

        let done = machine.buildFinished(
            id: ticket.id, result: result(succeeded: true, built: [0: box(0, "a"), 1: box(1, "b")]))
        #expect(Set(waiters(done)) == ["w1", "w2"])
        guard case .publish(let snapshot)? = done.snapshotChange else {
            Issue.record("success must publish")
            return
        }
        #expect(machine.snapshot === snapshot)

        // Ready: a later caller is answered at once, nothing is launched.
        let late = machine.allocateCaller()
        let ready = machine.startRequested(caller: late, label: "push", waiter: "w3")
        #expect(waiters(ready) == ["w3"])
        #expect(ready.launch == nil)
    }

    @Test("A waiter cancelled after completion is not resumed a second time")
    func cancelAfterCompletion() throws {
        var machine = Machine(graph: try graph())
        let caller = machine.allocateCaller()
        let ticket = try #require(machine.startRequested(caller: caller, label: "c", waiter: "w").launch)
        machine.buildLaunched(id: ticket.id, handle: 1)
        let done = machine.buildFinished(
            id: ticket.id, result: result(succeeded: true, built: [0: box(0, "a"), 1: box(1, "b")]))
        #expect(waiters(done) == ["w"])
        #expect(machine.waiterCancelled(caller: caller).resumptions.isEmpty)
    }

    @Test("A waiter cancelled before completion is resumed once, and not again by completion")
    func cancelBeforeCompletion() throws {
        var machine = Machine(graph: try graph())
        let caller = machine.allocateCaller()
        let ticket = try #require(machine.startRequested(caller: caller, label: "c", waiter: "w").launch)
        machine.buildLaunched(id: ticket.id, handle: 1)
        let cancelled = machine.waiterCancelled(caller: caller)
        #expect(waiters(cancelled) == ["w"])
        if case .cancelled = cancelled.resumptions.first?.outcome {} else { Issue.record("expected .cancelled") }
        let done = machine.buildFinished(
            id: ticket.id, result: result(succeeded: true, built: [0: box(0, "a"), 1: box(1, "b")]))
        #expect(done.resumptions.isEmpty)
        #expect(done.snapshotChange != nil, "the build still publishes for later callers")
    }

    @Test("Cancelled before registering: resumed at once when it registers")
    func cancelBeforeRegistering() throws {
        var machine = Machine(graph: try graph())
        let caller = machine.allocateCaller()
        #expect(machine.waiterCancelled(caller: caller).resumptions.isEmpty)
        let effects = machine.startRequested(caller: caller, label: "c", waiter: "w")
        #expect(waiters(effects) == ["w"])
        #expect(effects.launch == nil, "a cancelled caller does not start a build")
    }

    @Test("A superseded build can never publish, whatever it returns")
    func staleBuildNeverPublishes() throws {
        var machine = Machine(graph: try graph())
        let caller = machine.allocateCaller()
        let ticket = try #require(machine.startRequested(caller: caller, label: "c", waiter: "w").launch)
        machine.buildLaunched(id: ticket.id, handle: 7)

        let reset = machine.resetRequested(invalidating: nil, waiter: "r")
        #expect(reset.cancel == 7)
        #expect(waiters(reset) == ["w"])
        if case .failure(let error)? = reset.resumptions.first?.outcome { #expect(error.code == .superseded) }
        #expect(reset.completedResets.isEmpty, "the reset waits for the old build to stop")
        #expect(machine.generation == 2)

        // The old build finishes successfully anyway: no publish, its values are torn down.
        let built = [0: box(0, "a"), 1: box(1, "b")]
        let stale = machine.buildFinished(id: ticket.id, result: result(succeeded: true, built: built))
        #expect(stale.snapshotChange == nil)
        #expect(machine.snapshot == nil)
        #expect(stale.tearDown?.map(\.name) == ["b", "a"], "dependents first")
        let finished = machine.teardownFinished([])
        #expect(finished.completedResets.map(\.waiter) == ["r"])
    }

    @Test("A caller arriving during a reset's teardown waits; its build launches after the teardown")
    func noOverlap() throws {
        var machine = Machine(graph: try graph())
        let first = machine.allocateCaller()
        let ticket = try #require(machine.startRequested(caller: first, label: "c", waiter: "w").launch)
        machine.buildLaunched(id: ticket.id, handle: 1)
        _ = machine.buildFinished(
            id: ticket.id, result: result(succeeded: true, built: [0: box(0, "a"), 1: box(1, "b")]))

        let reset = machine.resetRequested(invalidating: nil, waiter: "r")
        #expect(reset.tearDown?.count == 2)
        #expect(reset.snapshotChange.map { if case .clear = $0 { true } else { false } } == true)
        let caller = machine.allocateCaller()
        let waiting = machine.startRequested(caller: caller, label: "next", waiter: "w2")
        #expect(waiting.launch == nil, "no build while the teardown runs")
        let after = machine.teardownFinished([])
        #expect(after.completedResets.map(\.waiter) == ["r"])
        let launched = try #require(after.launch)
        #expect(launched.generation == 2 && launched.attempt == 1 && launched.kept.isEmpty)
    }

    @Test("Transient failure keeps succeeded values for the next attempt; permanent failure is sticky")
    func failures() throws {
        var machine = Machine(graph: try graph())
        var caller = machine.allocateCaller()
        var ticket = try #require(machine.startRequested(caller: caller, label: "c", waiter: "w").launch)
        machine.buildLaunched(id: ticket.id, handle: 1)
        let kept = box(0, "a")
        let transient = machine.buildFinished(id: ticket.id, result: result(succeeded: false, built: [0: kept]))
        if case .failure(let error)? = transient.resumptions.first?.outcome { #expect(error.failure == .transient) }
        #expect(transient.tearDown == nil)

        caller = machine.allocateCaller()
        ticket = try #require(machine.startRequested(caller: caller, label: "c", waiter: "w2").launch)
        #expect(ticket.attempt == 2)
        #expect(ticket.kept[0] === kept)
        machine.buildLaunched(id: ticket.id, handle: 2)
        let permanent = machine.buildFinished(
            id: ticket.id, result: result(attempt: 2, succeeded: false, built: [:], failure: .permanent))
        #expect(permanent.tearDown?.map(\.name) == ["a"], "a permanent failure retires the generation's values")
        _ = machine.teardownFinished([])

        caller = machine.allocateCaller()
        let sticky = machine.startRequested(caller: caller, label: "c", waiter: "w3")
        #expect(sticky.launch == nil)
        if case .failure(let error)? = sticky.resumptions.first?.outcome {
            #expect(error.failure == .permanent)
        } else {
            Issue.record("a failed container answers at once with its failure")
        }
    }

    @Test("Overlapping resets each report only the teardowns of the values they retired")
    func resetsReportTheirOwnTeardowns() throws {
        var machine = Machine(graph: try graph())
        let caller = machine.allocateCaller()
        let ticket = try #require(machine.startRequested(caller: caller, label: "c", waiter: "w").launch)
        machine.buildLaunched(id: ticket.id, handle: 1)
        let a = box(0, "a")
        let b = box(1, "b")
        _ = machine.buildFinished(id: ticket.id, result: result(succeeded: true, built: [0: a, 1: b]))

        let first = machine.resetRequested(invalidating: [1], waiter: "reset b")
        #expect(first.tearDown?.map(\.name) == ["b"])
        let second = machine.resetRequested(invalidating: [0], waiter: "reset a")
        #expect(second.tearDown == nil, "one teardown job at a time")

        let record = { (box: AnyServiceBox) in
            (box: ObjectIdentifier(box), record: ResetReport.Teardown(service: box.name, generation: 1, error: nil))
        }
        let afterB = machine.teardownFinished([record(b)])
        #expect(afterB.tearDown?.map(\.name) == ["a"])
        let done = machine.teardownFinished([record(a)])
        let reports = Dictionary(uniqueKeysWithValues: done.completedResets.map { ($0.waiter, $0.result) })
        #expect(try reports["reset b"]?.get().tornDown.map(\.service) == ["b"])
        #expect(try reports["reset a"]?.get().tornDown.map(\.service) == ["a"])
    }
}
