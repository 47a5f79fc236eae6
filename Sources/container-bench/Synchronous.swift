import Container
import Synchronization

// Scenario 16 (issue 21): synchronous services. `resolveNow` of a built service against
// `container.resolve` of it; `resolveNow` of an unbuilt closure of three synchronous services
// against calling the three factories by hand.

/// Keys of the synchronous graph: triples `sN-0 <- sN-1 <- sN-2`, each a closure of three.
func tripleKey(_ triple: Int, _ index: Int) -> ServiceKey<BenchService> { ServiceKey("s\(triple)-\(index)") }

/// The factory each synchronous service runs (what the floor calls by hand).
@inline(never) func makeSynchronous(_ number: Int, _ input: BenchService?) -> BenchService {
    BenchService(number: number &+ (input?.number ?? 0))
}

/// The key both reads of (a) use: one key, so its slot cache is warm, as an app's static keys are.
private let readKey = tripleKey(0, 2)

@inline(never) func opResolveNow(_ container: ServiceContainer, _ sink: Sink) {
    do { sink.object = try container.resolveNow(readKey) } catch { lookupFailures.add(1, ordering: .relaxed) }
}

@inline(never) func opResolveSame(_ container: ServiceContainer, _ sink: Sink) {
    do { sink.object = try container.resolve(readKey) } catch { lookupFailures.add(1, ordering: .relaxed) }
}

/// A graph of `triples` closures of three synchronous services (`sN-0 <- sN-1 <- sN-2`).
func synchronousTriples(_ triples: Int) throws -> ServiceGraph {
    var specs: [ServiceSpec] = []
    for triple in 0..<triples {
        specs.append(ServiceSpec.synchronous(tripleKey(triple, 0)) { _ in makeSynchronous(triple, nil) })
        specs.append(
            ServiceSpec.synchronous(tripleKey(triple, 1), dependsOn: [tripleKey(triple, 0).name]) { context in
                makeSynchronous(1, try context[tripleKey(triple, 0)])
            })
        specs.append(
            ServiceSpec.synchronous(tripleKey(triple, 2), dependsOn: [tripleKey(triple, 1).name]) { context in
                makeSynchronous(2, try context[tripleKey(triple, 1)])
            })
    }
    return try ServiceGraph(specs)
}

/// Scenario 16: synchronous services.
func synchronousScenario(_ settings: BenchSettings) async throws -> [Row] {
    let triples = settings.size(1_000, smoke: 20)
    let graph = try synchronousTriples(triples)

    // (a) A built service: resolveNow against resolve, on a container whose snapshot holds it.
    let built = ServiceContainer(graph: graph)
    _ = try built.resolveNow(readKey)
    let now = perCall(settings, loop(built, opResolveNow))
    let resolve = perCall(settings, loop(built, opResolveSame))
    let builtRatios = zip(now, resolve).map { $0 / $1 }

    // (b) Unbuilt closures: every triple of a new container, one resolveNow each, against the
    // three factories by hand.
    let roots = (0..<triples).map { tripleKey($0, 2) }
    var unbuilt: [Double] = []
    var byHand: [Double] = []
    var ratios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        let container = ServiceContainer(graph: graph)
        let start = nanoseconds()
        var sum = 0
        for root in roots { sum &+= try container.resolveNow(root).number }
        let containerNanos = nanoseconds() - start
        let floorStart = nanoseconds()
        for triple in 0..<triples {
            sum &+= makeSynchronous(2, makeSynchronous(1, makeSynchronous(triple, nil))).number
        }
        let floorNanos = nanoseconds() - floorStart
        checksum.bitwiseXor(UInt(bitPattern: sum), ordering: .relaxed)
        if index >= settings.warmup {
            unbuilt.append(Double(containerNanos) / Double(triples) / 1_000)
            byHand.append(Double(floorNanos) / Double(triples) / 1_000)
            ratios.append(Double(containerNanos) / Double(floorNanos))
        }
    }
    let builtRatio = Summary(builtRatios).median
    let ratio = Summary(ratios).median
    return [
        Row("sync", "(a) resolveNow of a built service, 1 task", unit: "ns/call", now),
        Row("sync", "(a) resolve of the same service, 1 task", unit: "ns/call", resolve),
        Row(
            "sync", "(a) ratio resolveNow / resolve", unit: "×", builtRatios, goal: "≤ 1.2×",
            met: settings.smoke ? nil : builtRatio <= 1.2),
        Row("sync", "(b) resolveNow of an unbuilt closure of 3 synchronous services", unit: "µs", unbuilt),
        Row("sync", "(b) the 3 factories called by hand", unit: "µs", byHand),
        Row(
            "sync", "(b) ratio resolveNow / by hand", unit: "×", ratios, goal: "≤ 3×",
            met: settings.smoke ? nil : ratio <= 3),
    ]
}
