import Testing

@testable import Container

@Suite("Tracer: builds and scopes on every event")
struct TracerScopeTests {
    @Test("a scoped tracer labels its events and shares the app tracer's order; an explicit scope wins")
    func scopedTracer() {
        let recorder = TraceRecorder()
        let tracer = Tracer(sinks: [recorder])
        let push = tracer.scoped("push#notification-42")
        let first = BuildAttempt(generation: 1, attempt: 1)
        tracer.emit(.buildStarted, build: first)
        push.emit(.scopeOpened, build: first)
        push.deliver(push.stamp([(.buildStarted, first), (.nodeStarted(node: "pushDetail"), first)]))
        tracer.emit(.scopeClosed, build: first, scope: "scene#window-1")
        let events = recorder.events
        #expect(
            events.map(\.kind.name) == [
                "build.started", "scope.opened", "build.started", "node.started", "scope.closed",
            ])
        #expect(
            events.map(\.scope) == [
                nil, "push#notification-42", "push#notification-42", "push#notification-42", "scene#window-1",
            ])
        #expect(events.allSatisfy { $0.build == first && $0.generation == 1 && $0.attempt == 1 })
        #expect(events.map(\.time) == events.map(\.time).sorted())
    }

    @Test("an event's description shows its build and scope")
    func description() {
        let event = TraceEvent(
            time: .microseconds(1_250), build: BuildAttempt(generation: 2, attempt: 3), scope: "scene#1",
            kind: .nodeStarted(node: "router"))
        #expect(event.description == "[1.25ms g2 a3 scene#1] node.started")
        #expect(
            TraceEvent(time: .zero, build: BuildAttempt(generation: 1, attempt: 1), kind: .scopeOpened).scope == nil)
    }
}
