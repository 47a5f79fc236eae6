import ContainerTesting
import Testing

@testable import Container

@Suite("LatestFeed: newest-wins multicast, each value at most once, in order, the last always")
struct LatestFeedTests {
    @Test("consumers racing a producer of 1...2000 see increasing values ending with the last")
    func racingConsumers() async throws {
        let feed = LatestFeed<Int>()
        let ids = (0..<4).map { _ in feed.subscribe() }
        let last = 2_000
        let seen = try await withTimeout(.seconds(60), "4 consumers and a producer") {
            try await withThrowingTaskGroup(of: [Int].self) { group in
                for id in ids {
                    group.addTask {
                        var values: [Int] = []
                        while let value = await feed.next(id) {
                            values.append(value)
                            if value == last { break }
                        }
                        return values
                    }
                }
                group.addTask {
                    for value in 1...last { feed.offer(value).resume() }
                    return []
                }
                var all: [[Int]] = []
                for try await values in group where !values.isEmpty { all.append(values) }
                return all
            }
        }
        #expect(seen.count == 4)
        for values in seen {
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "in order, none twice")
            #expect(values.last == last, "the last value always arrives")
        }
    }

    @Test("clear drops what was not taken (a notice to who asks); finish ends waiting and later consumers; cancel one")
    func clearFinishCancel() async throws {
        let feed = LatestFeed<Int>()
        let early = feed.subscribe()
        let told = feed.subscribe(takingClears: true)
        feed.offer(1).resume()
        feed.clear(telling: -1).resume()
        #expect(await feed.next(told) == -1, "a consumer that takes clears gets the notice in place of 1")
        let late = feed.subscribe()
        feed.offer(2).resume()
        #expect(await feed.next(early) == 2, "1 was cleared before it was taken")
        #expect(await feed.next(late) == 2, "a consumer after a clear starts with nothing, then gets 2")
        #expect(await feed.next(told) == 2)
        let cancelled = feed.subscribe(startingWithNewest: false)
        feed.cancel(cancelled)
        #expect(await feed.next(cancelled) == nil)
        let waiting = Task { await feed.next(early) }
        try await withTimeout(.seconds(30), "the consumer to wait") {
            while !feed.isWaiting(early) { await Task.yield() }
        }
        feed.finish().resume()
        #expect(try await withTimeout(.seconds(30), "the end") { await waiting.value } == nil)
        #expect(await feed.next(feed.subscribe()) == nil)
        #expect(!feed.hasConsumers)
    }

    @Test("calls of one consumer waiting at once (iterator copies) get the values in call order; an end ends each")
    func concurrentCallsOfOneConsumer() async throws {
        let feed = LatestFeed<Int>()
        let id = feed.subscribe()
        /// Starts a `next(consumer)` and returns once it waits.
        func waitingCall(_ consumer: Int) async throws -> Task<Int?, Never> {
            let parked = feed.callsThatWaited
            let call = Task { await feed.next(consumer) }
            try await withTimeout(.seconds(30), "a call to wait") {
                while feed.callsThatWaited == parked { await Task.yield() }
            }
            return call
        }
        let first = try await waitingCall(id)
        let second = try await waitingCall(id)
        feed.offer(1).resume()
        #expect(try await withTimeout(.seconds(30), "the earlier call") { await first.value } == 1)
        #expect(feed.isWaiting(id), "the later call still waits, for the next value")
        feed.offer(2).resume()
        #expect(try await withTimeout(.seconds(30), "the later call") { await second.value } == 2)

        let cancelled = [try await waitingCall(id), try await waitingCall(id)]
        feed.cancel(id)
        for call in cancelled {
            #expect(try await withTimeout(.seconds(30), "a cancelled call") { await call.value } == nil)
        }

        let other = feed.subscribe(startingWithNewest: false)
        let ended = [try await waitingCall(other), try await waitingCall(other)]
        feed.finish().resume()
        for call in ended { #expect(try await withTimeout(.seconds(30), "the end") { await call.value } == nil) }
    }
}
