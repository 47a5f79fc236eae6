import ContainerTesting
import Testing

@testable import Container

/// Consumers of `container.snapshots` read each snapshot a node's end published on another
/// thread. CI runs this under ThreadSanitizer too (`swift test --sanitize=thread`): the feed
/// tells it that what the producer did before the hand-off happens before the consumer's read
/// (a continuation resumed after unlocking is outside its sight), so it reports no race.
@Suite("Observing snapshots: the hand-off to consumers")
struct FeedHandOffTests {
    @Test("a consumer reads each snapshot a node's end published on another thread")
    func consumerReadsPublishedSnapshots() async throws {
        for _ in 0..<100 {
            let container = try ServiceContainer([
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"], start: .lazy) { _ in 2 },
                ServiceSpec(ServiceKey<Int>("c"), dependsOn: ["a"], start: .lazy) { _ in 3 },
            ])
            let consumers = (0..<3).map { lag in
                let iterator = container.snapshots.makeAsyncIterator()
                return Task {
                    var iterator = iterator
                    var generations: [Int] = []
                    while let snapshot = await iterator.next() {
                        // Read the handed snapshot, as an observer would: each holds the eager a.
                        generations.append(snapshot.serviceNames.contains("a") ? snapshot.generation : -1)
                        for _ in 0..<(lag * 3) { await Task.yield() }
                    }
                    return generations
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for step in 0..<12 {
                            switch (worker + step) % 4 {
                            case 0: _ = try? await container.start()
                            case 1: _ = try? await container.service(ServiceKey<Int>("b"))
                            case 2: _ = try? await container.service(ServiceKey<Int>("c"))
                            default: _ = try? await container.reset(invalidating: ["a"])
                            }
                        }
                    }
                }
            }
            _ = try await container.shutdown()
            for consumer in consumers {
                let generations = try await withTimeout(.seconds(30), "a consumer's end") { await consumer.value }
                #expect(!generations.contains(-1), "a snapshot without the eager service")
                #expect(generations == generations.sorted(), "snapshots in publication order: \(generations)")
                #expect(generations.last.map { $0 <= container.generation } ?? true)
            }
        }
    }
}
