import TestSupport
import Testing

@testable import Container

@Suite("Optional services in the state machine: an optional dependency that joins a build late")
struct OptionalStateMachineTests {
    typealias Machine = CoordinatorStateMachine<String, String, Int>
    static let y = 0, o = 1, d = 2

    /// `y`; `o` optional; `d` depending on `y` and `o?`. A failed attempt waits 1 s.
    static func machine() throws -> Machine {
        var o = ServiceSpec(ServiceKey<Int>("o")) { _ in 1 }
        o.isOptional = true
        let graph = try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("y")) { _ in 0 },
            o,
            ServiceSpec(ServiceKey<Int>("d"), dependsOn: ["y", "o?"]) { _ in 2 },
        ])
        return Machine(
            declared: graph,
            tickets: TicketFactory(
                policy: BuildPolicy(retryAfter: RetryPolicy.Backoff(initialDelay: .seconds(1))), tuning: .off,
                tracer: Tracer(sinks: []), redactor: Redactor(), scopeInstance: nil, parameters: ScopeParameters()))
    }

    static func request(_ machine: inout Machine, _ caller: Int, _ roots: [Int], now: Duration) -> Machine.RequestAction
    {
        machine.requested(
            .roots(roots), caller: caller, label: "c\(caller)", waiter: "w\(caller)", priority: 21, isCancelled: false,
            now: now)
    }

    static func launch(_ action: Machine.RequestAction) -> Machine.Launch? {
        guard case .park(_, let start) = action else { return nil }
        return start.launch
    }

    static func succeeded(_ slot: Int, of ticket: BuildTicket) -> NodeResult {
        let box = ServiceBox(slot, name: ticket.graph.nodes[slot].name, builtIn: ticket.build, tearDown: { _ in })
        return NodeResult(
            slot: slot, status: .succeeded, box: box, failure: nil, runs: 1, startedAt: .zero, endedAt: .zero)
    }

    static func failed(_ slot: Int) -> NodeResult {
        NodeResult(
            slot: slot, status: .failed, box: nil,
            failure: NodeOutcome.Failure(kind: .transient, message: "x", error: TestFailure()), runs: 1,
            startedAt: .zero,
            endedAt: .zero)
    }

    struct TestFailure: Error {}

    @Test(
        "C: a member that joined while its optional dependency was blocked is not started by that dependency's end",
        arguments: [true, false])
    func optionalDependencyAddedLater(succeeds: Bool) throws {
        var machine = try Self.machine()
        // Attempt 1: o fails; it may be tried again after 1 s.
        guard let first = Self.launch(Self.request(&machine, 1, [Self.o], now: .zero)) else { return fail("o starts") }
        let end = machine.nodeFinished(build: first.ticket.id, Self.failed(Self.o), now: .zero)
        #expect(Self.waitersOf(end.resume) == ["w1"])
        #expect(machine.build == nil)
        // At 0.5 s, d is requested: o is blocked (absent), so d waits for y only.
        guard let second = Self.launch(Self.request(&machine, 2, [Self.d], now: .milliseconds(500))) else {
            return fail("y starts")
        }
        #expect(second.orders.launches.map(\.slot) == [Self.y])
        // At 2 s (o may be tried again), o is requested: it joins the build in flight.
        guard let third = Self.launch(Self.request(&machine, 3, [Self.o], now: .seconds(2))) else {
            return fail("o starts again")
        }
        #expect(third.orders.launches.map(\.slot) == [Self.o])
        // o ends while y still runs: d must not start (it needs y).
        let afterO = machine.nodeFinished(
            build: third.ticket.id, succeeds ? Self.succeeded(Self.o, of: third.ticket) : Self.failed(Self.o),
            now: .seconds(2))
        #expect(
            !afterO.orders.launches.map(\.slot).contains(Self.d),
            "d was started while its plain dependency y is still running (o \(succeeds ? "succeeded" : "failed"))")
        #expect(machine.invariantViolations().isEmpty, "\(machine.invariantViolations())")
    }

    static func waitersOf(_ resumptions: [Machine.Resumption]) -> [String] { resumptions.flatMap(\.waiters) }
}
