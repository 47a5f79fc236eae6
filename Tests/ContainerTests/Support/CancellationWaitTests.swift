import ContainerTesting
import Testing

@testable import Container

@Suite("Waiting for a cancellation")
struct CancellationWaitTests {
    @Test("A wait returns once its task is cancelled, and only then")
    func returnsOnCancellation() async throws {
        let waiting = Gate()
        let task = Task {
            waiting.open()
            await CancellationWait.untilCancelled()
            return Task.isCancelled
        }
        try await waiting.wait(timeout: .seconds(60), "the task to start waiting")
        task.cancel()
        let cancelledWhenItReturned = try await withTimeout(.seconds(60), "the wait to end") { await task.value }
        #expect(cancelledWhenItReturned, "it returned before its task was cancelled")
    }

    @Test("A task cancelled already does not wait")
    func cancelledAlready() async throws {
        let returned = try await withTimeout(.seconds(60), "the wait of a cancelled task") {
            withUnsafeCurrentTask { $0?.cancel() }
            await CancellationWait.untilCancelled()
            return Task.isCancelled
        }
        #expect(returned)
    }
}
