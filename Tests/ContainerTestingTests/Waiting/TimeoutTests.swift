import ContainerTesting
import Testing

@Suite("withTimeout, Counter and OrderLog")
struct TimeoutTests {
    struct Boom: Error, Equatable {}

    @Test("withTimeout returns the operation's value or rethrows its error")
    func passesThrough() async throws {
        #expect(try await withTimeout { 42 } == 42)
        await #expect(throws: Boom.self) { try await withTimeout { () async throws -> Int in throw Boom() } }
    }

    @Test("withTimeout fails a wait that never ends instead of hanging, and cancels it")
    func timesOut() async throws {
        let gate = Gate()  // never opened
        let cancelled = Gate()
        do {
            try await withTimeout(.milliseconds(100), "a gate nobody opens") {
                do { try await gate.cancellableWait() } catch { cancelled.open() }
            }
            Issue.record("the wait should have timed out")
        } catch let error as TimedOut {
            #expect(error.what == "a gate nobody opens")
            #expect(error.place?.hasPrefix("ContainerTestingTests/TimeoutTests.swift:") == true)
        }
        try await cancelled.wait(timeout: .seconds(60), "the timed-out operation to be cancelled")
    }

    @Test("a counter and a log shared by many tasks lose nothing")
    func concurrentCounts() async {
        let counter = Counter()
        let log = OrderLog()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    counter.increment()
                    log.append(index.isMultiple(of: 2) ? "even" : "odd")
                }
            }
        }
        #expect(counter.count == 200)
        #expect(log.entries.count == 200)
        #expect(log.count(of: "even") == 100)
        #expect(log.count(of: "odd") == 100)
        counter.reset()
        #expect(counter.count == 0)
        #expect(counter.increment() == 1)
    }

    @Test("the log keeps the order of appends")
    func orderKept() {
        let log = OrderLog()
        for entry in ["open", "migrate", "close"] { log.append(entry) }
        #expect(log.entries == ["open", "migrate", "close"])
    }
}
