import ContainerTesting
import Testing

@testable import Container

/// The next element of `iterator`, failing the test after 30 s.
func nextElement<Iterator: AsyncIteratorProtocol & Sendable>(
    _ iterator: inout Iterator, _ what: String
) async throws -> Iterator.Element? where Iterator.Element: Sendable, Iterator.Failure == Never {
    let copy = iterator
    let (element, advanced) = try await withTimeout(.seconds(30), what) {
        var moving = copy
        let element = try await moving.next()
        return (element, moving)
    }
    iterator = advanced
    return element
}

/// A container of `database` and, in scope `push`, `detail` (the database plus one), with
/// instance `push#1` open.
func pushInstance() throws -> (ServiceContainer, ScopeInstance) {
    let container = try ServiceContainer(
        graph: ServiceGraph(
            [
                ServiceSpec(ServiceKey<Int>("database")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("detail"), dependsOn: ["database"], lifetime: .scope("push")) { context in
                    try context[ServiceKey<Int>("database")] + 1
                },
            ], scopes: ["push"]))
    return (container, try container.openScope("push", id: "1"))
}

@Suite("Observing snapshots: each published once, in order, newest first for a slow consumer, ended at shutdown")
struct SnapshotUpdatesTests {
    /// `configuration <- session`, both eager, and a lazy `feed` reading the session.
    private func container(_ log: OrderLog) throws -> ServiceContainer {
        try ServiceContainer([
            countedSpec("configuration", log: log),
            countedSpec("session", dependsOn: ["configuration"], log: log),
            countedSpec("feed", dependsOn: ["session"], log: log, start: .lazy),
        ])
    }

    @Test("a consumer gets each generation and each growth, in order; the sequence ends at the shutdown")
    func generationsAndGrowth() async throws {
        let container = try container(OrderLog())
        var snapshots = container.snapshots.makeAsyncIterator()
        _ = try await container.start()
        let first = try #require(try await nextElement(&snapshots, "the first snapshot"))
        #expect(first.generation == 1 && !first.contains("feed"))

        _ = try await container.service(ServiceKey<Made>.made("feed"))
        let grown = try #require(try await nextElement(&snapshots, "the grown snapshot"))
        #expect(grown.generation == 1 && grown.contains("feed"), "a growth of the generation is published too")

        _ = try await container.reset(invalidating: ["session"])
        _ = try await container.start()
        let second = try #require(try await nextElement(&snapshots, "generation 2"))
        #expect(second.generation == 2)

        _ = try await container.shutdown()
        #expect(try await nextElement(&snapshots, "the end") == nil)
        #expect(try await nextElement(&snapshots, "still the end") == nil)
        var late = container.snapshots.makeAsyncIterator()
        #expect(try await nextElement(&late, "a consumer after the shutdown") == nil)
    }

    @Test("3 consumers racing 100 generation changes: each in order, none twice, all get the last one")
    func racingGenerations() async throws {
        let container = try container(OrderLog())
        let consumers = (0..<3).map { lagging in
            let snapshots = container.snapshots.makeAsyncIterator()
            return Task {
                var snapshots = snapshots
                var seen: [AppServices] = []
                while let snapshot = await snapshots.next() {
                    seen.append(snapshot)
                    if lagging > 0 { for _ in 0..<lagging * 5 { await Task.yield() } }
                }
                return seen
            }
        }
        for _ in 0..<100 {
            _ = try await container.start()
            _ = try await container.reset(invalidating: ["session"])
        }
        let last = try await container.start()
        // Quiescent now: every consumer ends up with the last snapshot; then the shutdown ends them.
        try await withTimeout(.seconds(30), "every consumer to take the last snapshot") {
            while container.core.feeds.snapshots.hasPending { await Task.yield() }
        }
        _ = try await container.shutdown()
        for consumer in consumers {
            let seen = try await withTimeout(.seconds(30), "a consumer to end") { await consumer.value }
            #expect(seen.last === last, "the last one always arrives")
            #expect(Set(seen.map(ObjectIdentifier.init)).count == seen.count, "none twice")
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.generation < $1.generation }, "in order")
        }
    }

    @Test("a graceful shutdown: observers follow it while it drains, and end once it is done")
    func drainingBuildPublishes() async throws {
        let gate = Gate()
        let container = try ServiceContainer([
            countedSpec("slow", log: OrderLog()) { _ in try await gate.wait(timeout: .seconds(30), "the test") }
        ])
        var snapshots = container.snapshots.makeAsyncIterator()
        var statuses = container.statusUpdates.makeAsyncIterator()
        let caller = Task { try await container.start() }
        var state = try await nextElement(&statuses, "the status now")?.state
        while state != .running { state = try await nextElement(&statuses, "the running status")?.state }
        let shutdown = Task { try await container.shutdown(deadline: .now + .seconds(30)) }
        while state != .shuttingDown { state = try await nextElement(&statuses, "the draining status")?.state }
        gate.open()
        _ = try await withTimeout(.seconds(30), "the draining build") { try await caller.value }
        _ = try await withTimeout(.seconds(30), "the shutdown") { try await shutdown.value }
        // The drained build's callers got its snapshot; the shutdown that followed at once retired
        // it in the same transition, so it never became current and no observer gets it.
        #expect(try await nextElement(&snapshots, "the end") == nil)
        #expect(container.current == nil)
        var last: ContainerStatus.State?
        while let status = try await nextElement(&statuses, "statuses until the end") { last = status.state }
        #expect(last == .shutDown)
    }

    @Test("a consumer that began after a publication starts with the snapshot published then")
    func startsWithCurrent() async throws {
        let container = try container(OrderLog())
        let services = try await container.start()
        var snapshots = container.snapshots.makeAsyncIterator()
        let first = try await nextElement(&snapshots, "the current snapshot")
        #expect(first === services)
    }

    @Test("a slow consumer gets the newest snapshot, never a backlog, and never the same one twice")
    func slowConsumerGetsNewest() async throws {
        let container = try container(OrderLog())
        var snapshots = container.snapshots.makeAsyncIterator()
        for _ in 0..<3 {
            _ = try await container.start()
            _ = try await container.reset(invalidating: ["session"])
        }
        let third = try await container.start()
        #expect(third.generation == 4)
        let taken = try await nextElement(&snapshots, "the newest")
        #expect(taken === third, "generations 1 to 3 were superseded before the consumer asked")
        _ = try await container.reset(invalidating: ["session"])
        let fifth = try await container.start()
        let next = try await nextElement(&snapshots, "the next")
        #expect(next === fifth, "the one already taken is not given again")
    }

    @Test("a snapshot a reset retired before the consumer took it is dropped")
    func retiredSnapshotDropped() async throws {
        let container = try container(OrderLog())
        var snapshots = container.snapshots.makeAsyncIterator()
        _ = try await container.start()
        _ = try await container.reset(invalidating: ["session"])
        let current = try await container.start()
        let taken = try await nextElement(&snapshots, "the snapshot after the reset")
        #expect(taken === current && taken?.generation == 2)
    }

    @Test("cancelling one consumer ends its sequence only; a dropped iterator unsubscribes")
    func cancellation() async throws {
        let container = try container(OrderLog())
        let staying = container.snapshots
        var other = staying.makeAsyncIterator()
        let waiting = Task {
            var mine = container.snapshots.makeAsyncIterator()
            return await mine.next()
        }
        waiting.cancel()
        #expect(try await withTimeout(.seconds(30), "the cancelled consumer") { await waiting.value } == nil)
        let services = try await container.start()
        #expect(try await nextElement(&other, "the other consumer") === services)

    }

    @Test("copies of one iterator waiting at once: each snapshot goes to one of them, the earlier first; both end")
    func copiesOfOneIterator() async throws {
        let container = try container(OrderLog())
        let feed = container.core.feeds.snapshots
        let iterator = container.snapshots.makeAsyncIterator()
        /// A task taking one snapshot from a copy of `iterator`, returned once it waits.
        func waitingCopy() async throws -> Task<AppServices?, Never> {
            let parked = feed.callsThatWaited
            let copy = Task {
                var copy = iterator
                return await copy.next()
            }
            try await withTimeout(.seconds(30), "a copy to wait") {
                while feed.callsThatWaited == parked { await Task.yield() }
            }
            return copy
        }
        let earlier = try await waitingCopy()
        let later = try await waitingCopy()
        let first = try await container.start()
        #expect(try await withTimeout(.seconds(30), "the earlier copy") { await earlier.value } === first)
        _ = try await container.reset(invalidating: ["session"])
        let second = try await container.start()
        #expect(try await withTimeout(.seconds(30), "the later copy") { await later.value } === second)

        let ending = [try await waitingCopy(), try await waitingCopy()]
        _ = try await container.shutdown()
        for copy in ending { #expect(try await withTimeout(.seconds(30), "a copy's end") { await copy.value } == nil) }
    }

    @Test("an iterator that is dropped unsubscribes: the feed holds no snapshot for it")
    func droppedIterator() async throws {
        let container = try container(OrderLog())
        let feed = container.core.feeds.snapshots
        #expect(!feed.hasConsumers)
        do {
            var dropped = container.snapshots.makeAsyncIterator()
            #expect(feed.hasConsumers)
            _ = try await container.start()
            _ = try await nextElement(&dropped, "a consumer about to be dropped")
        }
        #expect(!feed.hasConsumers, "the dropped iterator's subscription ended with it")
    }

    @Test("values(of:) gives a service's value each time it changes, none when it is carried over")
    func valuesOfOneService() async throws {
        let container = try container(OrderLog())
        var sessions = container.values(of: ServiceKey<Made>.made("session")).makeAsyncIterator()
        _ = try await container.start()
        #expect(try await nextElement(&sessions, "the first session")?.generation == 1)
        // The lazy feed grows the generation: the session is the same value, so no element.
        _ = try await container.service(ServiceKey<Made>.made("feed"))
        _ = try await container.reset(invalidating: ["feed"])
        _ = try await container.start()
        _ = try await container.service(ServiceKey<Made>.made("feed"))
        _ = try await container.reset(invalidating: ["session"])
        _ = try await container.start()
        let next = try await nextElement(&sessions, "the rebuilt session")
        #expect(next?.generation == 3, "generation 2 carried the session over: it was not given again")
    }

    @Test("status updates: the status now, the newest after changes, the last at the shutdown, then the end")
    func statusUpdates() async throws {
        let container = try container(OrderLog())
        var statuses = container.statusUpdates.makeAsyncIterator()
        #expect(try await nextElement(&statuses, "the status now")?.state == .idle)
        _ = try await container.start()
        var state = try await nextElement(&statuses, "a status after start()")?.state
        while state != .ready, state != nil {
            state = try await nextElement(&statuses, "the ready status")?.state
        }
        #expect(state == .ready)
        _ = try await container.shutdown()
        var ends: [ContainerStatus.State] = []
        while let status = try await nextElement(&statuses, "statuses until the end") {
            if !ends.isEmpty || status.state == .shutDown { ends.append(status.state) }
        }
        #expect(ends == [.shutDown], "the last status, once")
    }

    @Test("status updates that begin after the shutdown or close: the last status exactly once, then the end")
    func statusUpdatesAfterTheEnd() async throws {
        let (container, instance) = try pushInstance()
        _ = try await instance.start()
        _ = try await instance.close()
        _ = try await container.shutdown()
        for (what, updates) in [("container", container.statusUpdates), ("instance", instance.statusUpdates)] {
            var statuses = updates.makeAsyncIterator()
            var seen: [ContainerStatus.State] = []
            while let status = try await nextElement(&statuses, "the \(what)'s statuses until the end") {
                seen.append(status.state)
            }
            #expect(seen == [.shutDown], "the \(what)'s last status, once")
            #expect(try await nextElement(&statuses, "still the end") == nil)
        }
    }

    @Test("a scope instance's snapshots end when it is closed")
    func scopeInstance() async throws {
        let (container, instance) = try pushInstance()
        var snapshots = instance.snapshots.makeAsyncIterator()
        let services = try await instance.start()
        #expect(try await nextElement(&snapshots, "the instance's snapshot") === services)
        var details = instance.values(of: ServiceKey<Int>("detail")).makeAsyncIterator()
        #expect(try await nextElement(&details, "the detail") == 2)
        _ = try await instance.close()
        #expect(try await nextElement(&snapshots, "the end") == nil)
        #expect(try await nextElement(&details, "the end of the values") == nil)
        withExtendedLifetime(container) {}
    }

    @Test(
        "a scope instance's snapshots go on after a supersession, with the snapshot built on the app's new generation")
    func instanceSnapshotsOutliveSupersession() async throws {
        let (container, instance) = try pushInstance()
        _ = try await withTimeout(.seconds(30), "start") { try await instance.start() }
        var snapshots = instance.snapshots.makeAsyncIterator()
        let first = try await nextElement(&snapshots, "the instance's first snapshot")
        #expect(first?.appGeneration == 1)
        _ = try await withTimeout(.seconds(30), "reset") { try await container.reset(invalidating: ["database"]) }
        #expect(instance.current == nil, "the reset retired the database the instance used: superseded")
        let rebuilt = try await withTimeout(.seconds(30), "the instance's rebuild") { try await instance.start() }
        let next = try await nextElement(&snapshots, "the snapshot after the supersession")
        #expect(next != nil && next?.generation == rebuilt.generation && next?.appGeneration == 2)
        _ = try await instance.close()
        #expect(try await nextElement(&snapshots, "the end at the close") == nil)
        withExtendedLifetime(container) {}
    }
}
