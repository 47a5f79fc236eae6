import ContainerTesting
import Testing

@Suite("Gate: one-shot, cancellable or not, with a deadline")
struct GateTests {
    @Test("a wait returns once the gate opens; every later wait returns at once")
    func opens() async throws {
        let gate = Gate()
        let passed = Counter()
        let waiters = (0..<5).map { _ in
            Task {
                await gate.wait()
                passed.increment()
            }
        }
        #expect(!gate.isOpen)
        #expect(passed.count == 0)
        gate.open()
        for waiter in waiters { await waiter.value }
        #expect(passed.count == 5)
        #expect(gate.isOpen)
        try await withTimeout(.seconds(60), "a wait on an open gate") { await gate.wait() }
        gate.open()  // twice is harmless
    }

    @Test("wait() ignores cancellation: a cancelled waiter still waits for the gate")
    func waitIgnoresCancellation() async throws {
        let gate = Gate()
        let waiting = Gate()
        let waiter = Task {
            waiting.open()
            await gate.wait()
            return Task.isCancelled
        }
        try await waiting.wait(timeout: .seconds(60))
        waiter.cancel()
        gate.open()
        #expect(await waiter.value, "the waiter returned only after the gate opened, still cancelled")
    }

    @Test("cancellableWait() ends with CancellationError when the task is cancelled, or already was")
    func cancellableWaitThrows() async throws {
        let gate = Gate()
        let waiting = Gate()
        let waiter = Task {
            waiting.open()
            try await gate.cancellableWait()
        }
        try await waiting.wait(timeout: .seconds(60))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }

        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await gate.cancellableWait()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(!gate.isOpen)
        gate.open()
        try await gate.cancellableWait()
    }

    @Test("wait(timeout:) fails with TimedOut naming what was awaited and where")
    func timeoutFails() async {
        let gate = Gate()
        do {
            try await gate.wait(timeout: .milliseconds(50), "the database to open")
            Issue.record("the wait should have timed out")
        } catch let error as TimedOut {
            #expect(error.what == "the database to open")
            #expect(error.after == .milliseconds(50))
            #expect("\(error)".hasPrefix("timed out after 50ms waiting for the database to open ("))
            #expect(error.place?.hasPrefix("ContainerTestingTests/GateTests.swift:") == true)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
