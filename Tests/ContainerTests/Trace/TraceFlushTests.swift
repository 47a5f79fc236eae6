import ContainerTesting
import Testing

@testable import Container

@Suite("Tracer: waiting for the events stamped so far")
struct TraceFlushTests {
    @Test("flushed() waits for an earlier event a slow thread has not delivered yet, then returns once")
    func waitsForEarlierEvents() async throws {
        let recorder = TraceRecorder()
        let tracer = Tracer(sinks: [recorder])
        let build = BuildAttempt(generation: 1, attempt: 1)
        // Two transitions stamp in turn; the first one's thread delivers late.
        let first = tracer.stamp([(.buildStarted, build)])
        let second = tracer.stamp([(.nodeStarted(node: "database"), build)])
        tracer.deliver(second)
        #expect(recorder.events.isEmpty, "the second waits for the first")
        let returns = Counter()
        let flush = Task {
            await tracer.flushed()
            returns.increment()
            return recorder.events.map(\.kind.name)
        }
        try await withTimeout(.seconds(60), "the flush to wait") {
            while tracer.waitingFlushes == 0 { await Task.yield() }
        }
        #expect(returns.count == 0)
        tracer.deliver(first)
        let seen = try await withTimeout(.seconds(60), "the flush to return") { await flush.value }
        #expect(seen == ["build.started", "node.started"], "every event stamped before the flush, in order")
        #expect(returns.count == 1)
        #expect(tracer.waitingFlushes == 0)
    }

    @Test("flushed() returns at once when everything stamped was delivered, or nothing was stamped, or untraced")
    func returnsAtOnce() async throws {
        let tracer = Tracer(sinks: [TraceRecorder()])
        try await withTimeout(.seconds(60), "a flush of nothing") { await tracer.flushed() }
        tracer.emit(.buildStarted, build: BuildAttempt(generation: 1, attempt: 1))
        try await withTimeout(.seconds(60), "a flush of what was delivered") { await tracer.flushed() }
        try await withTimeout(.seconds(60), "an untraced flush") { await Tracer(sinks: []).flushed() }
        #expect(tracer.waitingFlushes == 0)
    }
}
