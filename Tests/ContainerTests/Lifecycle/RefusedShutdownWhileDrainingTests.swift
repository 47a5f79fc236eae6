import ContainerTesting
import Testing

@testable import Container

/// ShutdownAndStatus.md: "When either returns (and when `ScopeInstance/close()` returns), the
/// trace sinks have every event up to the `container.shutdown` (or `scope.closed`): a sink
/// writing a file can be closed then." CoordinatorStateMachine.shutdownTraced: "A close refused
/// because one is in progress traces it too ... so whichever returns first finds it traced."
/// A `shutdown()` refused while a graceful shutdown drains returns before `container.shutdown`
/// is traced: that line only comes when the drain ends.
@Suite("Lifecycle: a shutdown refused while a graceful one drains")
struct RefusedShutdownWhileDrainingTests {
    @Test("shutdown() refused during the drain returns only once container.shutdown is traced")
    func refusedShutdownFindsTheShutdownTraced() async throws {
        let reached = Gate()
        let release = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(key("database")) { c in
                    reached.open()
                    await release.wait()  // finishes whatever the cancellation
                    return Built(service: "database", generation: c.generation, instance: nil)
                }
            ], trace: [trace])
        let first = Task { try await container.start() }
        try await reached.wait(timeout: .seconds(30), "database to run")
        let graceful = Task { try await container.shutdown(deadline: .now + .seconds(120)) }
        try await withTimeout(.seconds(30), "the drain to begin") {
            while container.status.state != .shuttingDown { await Task.yield() }
        }
        // Refused (one is under way), it returns once the shutdown is traced: after the drain.
        let second = Task { () -> (error: ContainerError?, traced: Int) in
            do {
                _ = try await container.shutdown()
                return (nil, trace.count("container.shutdown"))
            } catch {
                return (error as? ContainerError, trace.count("container.shutdown"))
            }
        }
        release.open()
        _ = await first.result
        let (error, tracedWhenReturned) = try await withTimeout(.seconds(30), "the second shutdown") {
            await second.value
        }
        #expect(error?.code == .shutDown)
        _ = try await withTimeout(.seconds(30), "the graceful shutdown") { try await graceful.value }
        #expect(
            tracedWhenReturned == 1,
            "the refused shutdown() returned with no container.shutdown in the sink; events: \(trace.events.map(\.kind.name))"
        )
    }
}
