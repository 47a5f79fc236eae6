import Container
import ContainerTesting
import Testing

@Suite("TraceWatcher: waits until the trace shows something")
struct TraceWatcherTests {
    @Test("a wait returns once an event satisfies the condition, or at once when the trace already does")
    func waits() async throws {
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("held")) { _ in
                    try await gate.cancellableWait(); return 1
                }
            ], trace: [trace])
        // caller-1 joins first (it finds the container idle); the others join its build.
        let first = Task { try await container.start(as: "caller-1") }
        try await trace.wait(for: "caller-1 to join") { $0.count("caller.joined") == 1 }
        let callers = [first] + (2...3).map { index in Task { try await container.start(as: "caller-\(index)") } }
        try await trace.wait(for: "3 callers to join") { $0.count("caller.joined") == 3 }
        #expect(trace.count("caller.joined") == 3)
        #expect(trace.count("snapshot.published") == 0, "the build is still held")
        gate.open()
        for caller in callers { _ = try await withTimeout { try await caller.value } }
        try await trace.wait(for: .resumedWithSnapshot("caller-3"))
        try await trace.wait(for: "what already happened", timeout: .milliseconds(1)) { $0.count("build.started") == 1 }
        try trace.expect(.builtOnce("held"), .builds(1), .joined("caller-1", finding: .idle))
    }

    @Test("a wait that the trace never satisfies fails with TimedOut; a later event does not resume it twice")
    func timesOut() async throws {
        let trace = TraceWatcher()
        await #expect(throws: TimedOut.self) {
            try await trace.wait(for: "a build", timeout: .milliseconds(50)) { $0.count("build.started") > 0 }
        }
        trace.record(TraceEvent(time: .zero, build: BuildAttempt(generation: 1, attempt: 1), kind: .buildStarted))
        #expect(trace.events.count == 1)
    }

    @Test("cancelling the waiting task ends its wait with CancellationError")
    func cancelled() async throws {
        let trace = TraceWatcher()
        let waiting = Task { try await trace.wait(for: "nothing") { _ in false } }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
