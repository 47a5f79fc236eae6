import Container
import Plugins
import Synchronization

/// Scenario 14: what observers add to a generation change (issue 22). A generation change is
/// `reset(invalidating: [leaf])` then `start()` on a ready container of a 200-node random DAG
/// with no-work providers; it is measured with no observer and with 10 consumers of
/// `snapshots`, each reading one service of every snapshot it gets (each wakes per generation:
/// on 2 cores their run competes with the changes), and with 10 consumers that are subscribed
/// but take only the newest after the batch (what the publication itself costs: the offer in
/// the critical section). Batches alternate, so every side sees the same machine.
func observationScenario(_ settings: BenchSettings) async throws -> [Row] {
    let size = settings.size(200, smoke: 50)
    let fixture = try await ReloadFixture.make(size: size)
    let container = fixture.container
    let leaf = fixture.leaf
    let read = ServiceKey<Int>(RandomDAG.name(0))
    let batch = settings.size(200, smoke: 10)
    var alone: [Double] = []
    var observed: [Double] = []
    var ratios: [Double] = []
    var subscribed: [Double] = []
    var subscribedRatios: [Double] = []
    var consumed = 0
    for index in 0..<(settings.warmup + settings.samples) {
        let aloneNanos = try await generationChanges(batch, of: container, invalidating: leaf)
        // Ten consumers, subscribed before the clock starts; each reads a service of every
        // snapshot it gets, and they end when the batch's last generation is taken.
        let last = container.generation + batch
        let consumers = (0..<10).map { _ in
            let snapshots = container.snapshots.makeAsyncIterator()
            return Task {
                var snapshots = snapshots
                var taken = 0
                while let services = await snapshots.next() {
                    taken &+= (try? services[read]) ?? 0
                    if services.generation >= last { break }
                }
                return taken
            }
        }
        let observedNanos = try await generationChanges(batch, of: container, invalidating: leaf)
        for consumer in consumers { consumed &+= await consumer.value }
        var idle = (0..<10).map { _ in container.snapshots.makeAsyncIterator() }
        let subscribedNanos = try await generationChanges(batch, of: container, invalidating: leaf)
        for index in idle.indices { consumed &+= await idle[index].next()?.generation ?? 0 }
        if index >= settings.warmup {
            subscribed.append(Double(subscribedNanos) / Double(batch) / 1_000)
            subscribedRatios.append(Double(subscribedNanos) / Double(aloneNanos))
            alone.append(Double(aloneNanos) / Double(batch) / 1_000)
            observed.append(Double(observedNanos) / Double(batch) / 1_000)
            ratios.append(Double(observedNanos) / Double(aloneNanos))
        }
    }
    checksum.bitwiseXor(UInt(bitPattern: consumed), ordering: .relaxed)
    let ratio = Summary(ratios).median
    let subscribedRatio = Summary(subscribedRatios).median
    return [
        Row("observe", "generation change (reset of a leaf + start()), \(size) services", unit: "µs", alone),
        Row("observe", "the same with 10 consumers of snapshots", unit: "µs", observed),
        Row(
            "observe", "ratio with 10 consumers / without", unit: "×", ratios, goal: "≤ 1.05×",
            met: settings.smoke ? nil : ratio <= 1.05),
        Row("observe", "the same with 10 consumers subscribed, taking the newest after", unit: "µs", subscribed),
        Row(
            "observe", "ratio with 10 subscribed consumers / without", unit: "×", subscribedRatios, goal: "≤ 1.05×",
            met: settings.smoke ? nil : subscribedRatio <= 1.05),
    ]
}

/// The time of `count` generation changes of `container`, each `reset(invalidating: [leaf])`
/// then `start()`, in nanoseconds.
private func generationChanges(_ count: Int, of container: ServiceContainer, invalidating leaf: String)
    async throws -> UInt64
{
    let start = nanoseconds()
    for _ in 0..<count {
        _ = try await container.reset(invalidating: [leaf])
        _ = try await container.start()
    }
    return nanoseconds() - start
}
