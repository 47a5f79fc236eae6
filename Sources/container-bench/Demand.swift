import Container
import Foundation
import Synchronization

// Scenario 13 (issue 20): demand-driven start-up. (a) A request for a 5-service closure in a
// 1,000-service graph whose other services are lazy, against `start()` of those 5 alone;
// (b) 100 concurrent requests with random overlapping closures over a 1,000-node lazy graph,
// against one request for their union; (c) a cold start of 10 eager services against building
// the same 10 values by hand.

/// Provider runs of the demand scenario's graphs (checked against the closures' sizes).
private let demandRuns = Atomic<Int>(0)

/// The work of one provider of the scenario: its number plus its inputs'.
@inline(never) private func makeDemanded(_ number: Int, _ context: ProviderContext, _ inputs: [String]) throws
    -> BenchService
{
    demandRuns.add(1, ordering: .relaxed)
    var sum = number
    for input in inputs { sum &+= try context[ServiceKey<BenchService>(input)].number }
    return BenchService(number: sum)
}

/// A spec of the scenario's graphs: `name` reads each of `inputs`.
private func demandSpec(_ name: String, number: Int, inputs: [String], start: StartPolicy) -> ServiceSpec {
    ServiceSpec(ServiceKey<BenchService>(name), dependsOn: inputs, start: start) { context in
        try makeDemanded(number, context, inputs)
    }
}

/// A chain `c0 <- c1 <- ... <- c4` (eager), then `others` lazy services, each reading up to
/// three earlier services (chain or not) chosen by `generator`.
func demandGraph(others: Int, chainPolicy: StartPolicy, generator: inout SeededGenerator) throws
    -> ServiceGraph
{
    var specs: [ServiceSpec] = []
    var names: [String] = []
    for index in 0..<5 {
        let inputs = index == 0 ? [] : ["c\(index - 1)"]
        specs.append(demandSpec("c\(index)", number: index, inputs: inputs, start: chainPolicy))
        names.append("c\(index)")
    }
    for index in 0..<others {
        let count = Int.random(in: 0...min(3, names.count), using: &generator)
        let inputs = Array(Set((0..<count).map { _ in names[Int.random(in: names.indices, using: &generator)] }))
            .sorted()
        specs.append(demandSpec("s\(index)", number: index, inputs: inputs, start: .lazy))
        names.append("s\(index)")
    }
    return try ServiceGraph(specs)
}

/// A small deterministic generator (SplitMix64), so every run measures the same graphs.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Scenario 13: demand-driven start-up.
func demandScenario(_ settings: BenchSettings) async throws -> [Row] {
    var generator = SeededGenerator(state: 20)
    let size = settings.size(1_000, smoke: 100)
    let large = try demandGraph(others: size - 5, chainPolicy: .eager, generator: &generator)
    let alone = try demandGraph(others: 0, chainPolicy: .eager, generator: &generator)
    var rows = try await closureRows(large: large, alone: alone, size: size, settings)
    rows += try await overlappingRows(size: size, generator: &generator, settings)
    rows += try await coldStartRows(settings)
    return rows
}

/// (a): `start()` of the 5 eager services of `large` (the rest lazy) against `start()` of `alone`.
private func closureRows(large: ServiceGraph, alone: ServiceGraph, size: Int, _ settings: BenchSettings)
    async throws -> [Row]
{
    let batch = settings.size(500, smoke: 20)
    var inLarge: [Double] = []
    var inAlone: [Double] = []
    var requestOnly: [Double] = []
    var ratios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        var containers: [ServiceContainer] = []
        containers.reserveCapacity(batch)
        demandRuns.store(0, ordering: .relaxed)
        let largeStart = nanoseconds()
        var requestNanos: UInt64 = 0
        for _ in 0..<batch {
            let container = ServiceContainer(graph: large)
            let requestStart = nanoseconds()
            _ = try await container.start()
            requestNanos += nanoseconds() - requestStart
            containers.append(container)
        }
        let largeNanos = nanoseconds() - largeStart
        guard demandRuns.load(ordering: .relaxed) == 5 * batch else {
            throw BenchError(message: "start() ran more than the eager chain")
        }
        containers.removeAll(keepingCapacity: true)
        let aloneStart = nanoseconds()
        for _ in 0..<batch {
            let container = ServiceContainer(graph: alone)
            _ = try await container.start()
            containers.append(container)
        }
        let aloneNanos = nanoseconds() - aloneStart
        if index >= settings.warmup {
            inLarge.append(Double(largeNanos) / Double(batch) / 1_000)
            inAlone.append(Double(aloneNanos) / Double(batch) / 1_000)
            requestOnly.append(Double(requestNanos) / Double(batch) / 1_000)
            ratios.append(Double(largeNanos) / Double(aloneNanos))
        }
    }
    let ratio = Summary(ratios).median
    return [
        Row(
            "demand", "(a) new container + start() of 5 eager services in \(size) (the rest lazy)", unit: "µs",
            inLarge),
        Row("demand", "(a) of which start() alone", unit: "µs", requestOnly),
        Row("demand", "(a) new container + start() of the same 5 services alone", unit: "µs", inAlone),
        Row(
            "demand", "(a) ratio in \(size) / alone", unit: "×", ratios, goal: "≤ 1.5×",
            met: settings.smoke ? nil : ratio <= 1.5),
    ]
}

/// (b): 100 concurrent requests of 5 random roots each over a lazy graph, against one request
/// of all their roots; provider runs must equal the union's size.
private func overlappingRows(size: Int, generator: inout SeededGenerator, _ settings: BenchSettings)
    async throws -> [Row]
{
    let (graph, requests, roots) = try overlappingRequests(size: size, generator: &generator)
    let union = Set(unionClosure(of: roots, in: graph)).count
    var concurrent: [Double] = []
    var single: [Double] = []
    var ratios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        let many = ServiceContainer(graph: graph)
        demandRuns.store(0, ordering: .relaxed)
        let manyStart = nanoseconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for request in requests {
                let keys = request.map { ServiceKey<BenchService>($0).erased }
                group.addTask { _ = try await many.start(needs: keys) }
            }
            try await group.waitForAll()
        }
        let manyNanos = nanoseconds() - manyStart
        guard demandRuns.load(ordering: .relaxed) == union else {
            throw BenchError(message: "the 100 requests ran another number of providers than the union's size")
        }
        let one = ServiceContainer(graph: graph)
        let keys = roots.map { ServiceKey<BenchService>($0).erased }
        let oneStart = nanoseconds()
        _ = try await one.start(needs: keys)
        let oneNanos = nanoseconds() - oneStart
        if index >= settings.warmup {
            concurrent.append(Double(manyNanos) / 1_000)
            single.append(Double(oneNanos) / 1_000)
            ratios.append(Double(manyNanos) / Double(oneNanos))
        }
    }
    let ratio = Summary(ratios).median
    return [
        Row(
            "demand", "(b) 100 concurrent requests, random overlapping closures (union \(union) of \(size))",
            unit: "µs", concurrent),
        Row("demand", "(b) one request for the union", unit: "µs", single),
        Row(
            "demand", "(b) ratio 100 requests / one request", unit: "×", ratios, goal: "≤ 1.3×",
            met: settings.smoke ? nil : ratio <= 1.3),
    ]
}

/// The graph of (b), its 100 requests of 5 random roots each, and all their roots.
func overlappingRequests(size: Int, generator: inout SeededGenerator) throws
    -> (graph: ServiceGraph, requests: [[String]], roots: [String])
{
    let graph = try demandGraph(others: size - 5, chainPolicy: .lazy, generator: &generator)
    let names = graph.serviceNames
    let requests = (0..<100).map { _ in (0..<5).map { _ in names[Int.random(in: names.indices, using: &generator)] } }
    return (graph, requests, Array(Set(requests.joined())).sorted())
}

/// The names `roots` need, by the graph's public dependency lists.
private func unionClosure(of roots: [String], in graph: ServiceGraph) -> [String] {
    var seen = Set<String>()
    var stack = roots
    while let name = stack.popLast() {
        guard seen.insert(name).inserted else { continue }
        stack += graph.dependencies(of: name) ?? []
    }
    return Array(seen)
}

/// The ten services of (c): `v0`, then each reading the one before.
private let coldKeys = (0..<10).map { ServiceKey<BenchService>("v\($0)") }

/// (c): declare, validate, `start()` and read each of 10 eager services once, against making
/// the same 10 values by hand.
func coldStartRows(_ settings: BenchSettings) async throws -> [Row] {
    let batch = settings.size(500, smoke: 20)
    var container: [Double] = []
    var byHand: [Double] = []
    var ratios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        var sum = 0
        let containerStart = nanoseconds()
        for _ in 0..<batch { sum &+= try await coldStart() }
        let containerNanos = nanoseconds() - containerStart
        let handStart = nanoseconds()
        for _ in 0..<batch { sum &+= await buildByHand() }
        let handNanos = nanoseconds() - handStart
        checksum.bitwiseXor(UInt(bitPattern: sum), ordering: .relaxed)
        if index >= settings.warmup {
            container.append(Double(containerNanos) / Double(batch) / 1_000)
            byHand.append(Double(handNanos) / Double(batch) / 1_000)
            ratios.append(Double(containerNanos) / Double(handNanos))
        }
    }
    let ratio = Summary(ratios).median
    return [
        Row(
            "demand", "(c) cold start of 10 eager services: declare, validate, start(), read each", unit: "µs",
            container),
        Row("demand", "(c) floor: the same 10 values made by hand (async), read each", unit: "µs", byHand),
        Row(
            "demand", "(c) ratio cold start / by hand", unit: "×", ratios, goal: "≤ 40×",
            met: settings.smoke ? nil : ratio <= 40),
    ]
}

/// One cold start of (c): declare, validate, `start()`, read each service once.
@inline(never) func coldStart() async throws -> Int {
    let services = try await ServiceContainer(graph: try ServiceGraph(coldStartSpecs())).start()
    var sum = 0
    for key in coldKeys { sum &+= try services[key].number }
    return sum
}

/// The ten specs of (c): `v0`, then each reading the one before.
@inline(never) func coldStartSpecs() -> [ServiceSpec] {
    var specs: [ServiceSpec] = [ServiceSpec(coldKeys[0]) { _ in BenchService(number: 0) }]
    for position in 1..<coldKeys.count {
        let input = coldKeys[position - 1]
        specs.append(
            ServiceSpec(coldKeys[position], dependsOn: [input.name]) { context in
                BenchService(number: try context[input].number &+ position)
            })
    }
    return specs
}

/// The 10 values of (c) made by hand, each in turn, as an app's `async` start-up code would.
@inline(never) private func buildByHand() async -> Int {
    var values: [BenchService] = [BenchService(number: 0)]
    for position in 1..<10 { values.append(await makeByHand(values[position - 1], position)) }
    return values.reduce(0) { $0 &+ $1.number }
}

@inline(never) private func makeByHand(_ input: BenchService, _ position: Int) async -> BenchService {
    BenchService(number: input.number &+ position)
}
