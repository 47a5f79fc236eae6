import TestSupport
import Testing

@testable import Container

/// A request that joins a build walks its closure down to the build's members and waits for
/// those it meets; what lies below them is the build's (see the Demand-driven start-up article).
@Suite("A request joining a build waits for the members it meets")
struct JoiningRequestTests {
    typealias Machine = StateMachineTests.Machine

    /// The chain `a <- b <- c <- d`, and `e` alone.
    static func machine(policy: BuildPolicy = .default) throws -> Machine {
        let graph = try ServiceGraph([
            ServiceSpec(ServiceKey<Int>("a")) { _ in 0 },
            ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("c"), dependsOn: ["b"]) { _ in 2 },
            ServiceSpec(ServiceKey<Int>("d"), dependsOn: ["c"]) { _ in 3 },
            ServiceSpec(ServiceKey<Int>("e")) { _ in 4 },
        ])
        return Machine(
            declared: graph,
            tickets: TicketFactory(
                policy: policy, tuning: .off, tracer: Tracer(sinks: []), redactor: Redactor(), scopeInstance: nil,
                parameters: ScopeParameters()))
    }

    static let a = 0, b = 1, c = 2, d = 3, e = 4

    /// Node `slot` of `ticket`'s build succeeded.
    static func succeed(_ slot: Int, _ machine: inout Machine, _ ticket: BuildTicket) -> Machine.NodeEnd {
        machine.nodeFinished(build: ticket.id, StateMachineTests.succeeded(slot, of: ticket), now: .zero)
    }

    @Test("it is answered once the members it met settle: not before, and with every node of its closure")
    func answeredWhenTheMembersSettle() throws {
        var machine = try Self.machine()
        guard let launch = StateMachineTests.launched(StateMachineTests.request(&machine, 1, .roots([Self.c])))
        else { return }
        let ticket = launch.ticket
        guard case .park(_, let start) = StateMachineTests.request(&machine, 2, .roots([Self.d, Self.e])) else {
            return fail("the second request joins the build")
        }
        #expect(start.launch.map { StateMachineTests.slots($0.orders) } == [Self.e], "d waits for c; e starts")
        #expect(machine.build?.members.sorted() == [Self.a, Self.b, Self.c, Self.d, Self.e])
        guard case .park(_, let none) = StateMachineTests.request(&machine, 3, .roots([Self.b])), none.launch == nil
        else { return fail("a request for a member alone waits for it, adding nothing") }
        for slot in [Self.a, Self.e] {
            let ended = Self.succeed(slot, &machine, ticket)
            #expect(ended.resume.isEmpty, "node \(slot): b, c and d are still pending")
        }
        let afterB = Self.succeed(Self.b, &machine, ticket)
        #expect(StateMachineTests.waiters(afterB.resume) == ["w3"])
        let afterC = Self.succeed(Self.c, &machine, ticket)
        #expect(StateMachineTests.waiters(afterC.resume) == ["w1"], "the first request only")
        let afterD = Self.succeed(Self.d, &machine, ticket)
        #expect(StateMachineTests.waiters(afterD.resume) == ["w2"])
        guard case .snapshot(let snapshot)? = afterD.resume.first?.outcome else { return fail("a snapshot") }
        #expect(["a", "b", "c", "d", "e"].allSatisfy(snapshot.contains))
        StateMachineTests.expectValid(machine)
    }

    @Test("a failure below a member it met fails it with the error of its whole closure (attempts used up below)")
    func failureBelowAMember() throws {
        var machine = try Self.machine(policy: BuildPolicy(maxAttempts: 2))
        // a's first attempt fails: one attempt left for a, two for the others.
        guard let first = StateMachineTests.launched(StateMachineTests.request(&machine, 1, .roots([Self.a]))) else {
            return
        }
        _ = machine.nodeFinished(build: first.ticket.id, StateMachineTests.failed(Self.a, .transient), now: .zero)
        guard let retry = StateMachineTests.launched(StateMachineTests.request(&machine, 2, .roots([Self.b]))) else {
            return
        }
        guard case .park = StateMachineTests.request(&machine, 3, .roots([Self.c])) else {
            return fail("c's request waits for b, a member")
        }
        let ended = machine.nodeFinished(
            build: retry.ticket.id, StateMachineTests.failed(Self.a, .transient), now: .zero)
        #expect(StateMachineTests.waiters(ended.resume) == ["w2", "w3"], "both fail when the build ends")
        let codes = ended.resume.map { resumption -> ContainerError.Code? in
            guard case .failure(let error) = resumption.outcome else { return nil }
            return error.code
        }
        // b and c used one attempt each: only a, below the member c's request met, is used up.
        #expect(codes == [.attemptsExhausted, .attemptsExhausted])
        StateMachineTests.expectValid(machine)
    }

    @Test("a request meeting only settled members without a value fails at once, adding nothing")
    func settledMembersFailAtOnce() throws {
        var machine = try Self.machine()
        guard let launch = StateMachineTests.launched(StateMachineTests.request(&machine, 1, .roots([Self.b, Self.e])))
        else { return }
        _ = machine.nodeFinished(build: launch.ticket.id, StateMachineTests.failed(Self.a, .transient), now: .zero)
        guard case .answer("w2", .failure) = StateMachineTests.request(&machine, 2, .roots([Self.a])) else {
            return fail("a settled without a value in the build in flight")
        }
        #expect(machine.build?.members.sorted() == [Self.a, Self.b, Self.e], "nothing added")
        StateMachineTests.expectValid(machine)
    }
}

@Suite("A request's names, looked up before it asks")
struct RequestLookupTests {
    typealias Machine = StateMachineTests.Machine
    typealias Key = Machine.Demands.Key

    @Test("slots found in the graph's layout are taken as they are; found in another layout, the names count")
    func lookups() throws {
        let (a, d, e) = (JoiningRequestTests.a, JoiningRequestTests.d, JoiningRequestTests.e)
        var machine = try JoiningRequestTests.machine()
        let layout = machine.graph.layout
        let here = Key.names(["d"], found: .init(layout: layout.id, slots: [e]))
        #expect(machine.resolved(here) == .roots([e]), "the lookup, not the names")
        let elsewhere = Key.names(["d", "a", "d"], found: .init(layout: layout.id &+ 1, slots: [e]))
        #expect(machine.resolved(elsewhere) == .roots([a, d]))
        #expect(machine.resolved(.names(["d", "nope"])) == .roots([d]), "unknown names left out")
        // A request with a stale lookup builds what its names need.
        guard let launch = StateMachineTests.launched(StateMachineTests.request(&machine, 1, elsewhere)) else { return }
        #expect(StateMachineTests.slots(launch.orders) == [a])
        #expect(machine.build?.members.sorted() == [0, 1, 2, 3])
    }
}
