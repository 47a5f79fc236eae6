import Container
import ContainerTesting
import Plugins

/// A random DAG: node `i` depends on `min(i, fanIn)` distinct earlier nodes, chosen uniformly.
struct RandomDAG: Sendable {
    let dependencies: [[Int]]
    let dependents: [[Int]]

    init(nodes: Int, fanIn: Int, seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var dependencies: [[Int]] = []
        dependencies.reserveCapacity(nodes)
        for node in 0..<nodes {
            var chosen = Set<Int>()
            while chosen.count < min(node, fanIn) { chosen.insert(Int.random(in: 0..<node, using: &generator)) }
            dependencies.append(chosen.sorted())
        }
        var dependents = [[Int]](repeating: [], count: nodes)
        for (node, list) in dependencies.enumerated() { for dependency in list { dependents[dependency].append(node) } }
        self.dependencies = dependencies
        self.dependents = dependents
    }

    var count: Int { dependencies.count }
    var averageFanIn: Double { Double(dependencies.reduce(0) { $0 + $1.count }) / Double(max(count, 1)) }

    static func name(_ node: Int) -> String { "n\(node)" }

    /// Specs of the DAG with provider `provider` and per-node options.
    func specs(provider: String, options: (Int) -> ServiceOptions = { _ in ServiceOptions() }) -> [ServiceSpec] {
        dependencies.enumerated().map { node, list in
            ServiceSpec(
                name: Self.name(node), provider: provider, dependsOn: list.map(Self.name), options: options(node))
        }
    }

    /// The longest path when node `i` takes `durations[i]`.
    func criticalPath(_ durations: [Double]) -> Double {
        var finish = [Double](repeating: 0, count: count)
        for node in 0..<count {  // node order is topological: dependencies are earlier nodes
            finish[node] = (dependencies[node].map { finish[$0] }.max() ?? 0) + durations[node]
        }
        return finish.max() ?? 0
    }
}

/// A provider that does no work: the scheduling overhead is all that is left.
struct NoWorkProvider: ServiceProvider {
    let id = "nowork"
    func make(_ context: ProviderContext) async throws -> Int { context.attempt }
}

/// The floor of scenario 4: a bare task-group scheduler over the same DAG, which only counts
/// down dependencies and adds ready nodes as child tasks.
func bareScheduler(_ dag: RandomDAG) async -> Int {
    var waiting = dag.dependencies.map(\.count)
    var finished = 0
    await withTaskGroup(of: Int.self) { group in
        for node in 0..<dag.count where waiting[node] == 0 { group.addTask { node } }
        while let node = await group.next() {
            finished += 1
            for dependent in dag.dependents[node] {
                waiting[dependent] -= 1
                if waiting[dependent] == 0 { group.addTask { dependent } }
            }
        }
    }
    return finished
}

/// Scenario 4: scheduling overhead of a build whose providers do no work.
func schedulingScenario(_ settings: BenchSettings) async throws -> [Row] {
    var registry = ProviderRegistry()
    try registry.register(NoWorkProvider())
    let sizes = settings.smoke ? [200, 1_000] : [1_000, 10_000, 100_000]
    var rows: [Row] = []
    var perNodeAt: [Int: Double] = [:]
    var floorPerNodeAt: [Int: Double] = [:]
    for size in sizes {
        let dag = RandomDAG(nodes: size, fanIn: 3, seed: 5)
        let local = BenchSettings(
            samples: size >= 100_000 ? max(3, settings.samples / 3) : settings.samples, warmup: settings.warmup,
            targetSampleNanos: settings.targetSampleNanos, smoke: settings.smoke)
        var containerSamples: [Double] = []
        var floorSamples: [Double] = []
        var ratios: [Double] = []
        var rebuildRatios: [Double] = []
        // Small graphs build in a millisecond or two: a sample is several builds, so that one
        // descheduling does not decide the figure (per node, the division is by all of them).
        let builds = max(1, 10_000 / size)
        for index in 0..<(local.warmup + local.samples) {
            // A graph of its own per container: each build is a container's first (an app's cold
            // start), which knows nothing of earlier builds of an equal graph.
            let containers = try (0..<builds).map { _ in
                ServiceContainer(graph: try ServiceGraph(dag.specs(provider: "nowork"), registry: registry))
            }
            let start = nanoseconds()
            for container in containers {
                let services = try await container.start()
                precondition(services.serviceNames.count == size)
            }
            let elapsed = Double(nanoseconds() - start)
            let floorStart = nanoseconds()
            for _ in 0..<builds {
                let finished = await bareScheduler(dag)
                precondition(finished == size)
            }
            let floor = Double(nanoseconds() - floorStart)
            // The same containers again after a reset: each knows how long its nodes took.
            for container in containers { try await container.reset() }
            let rebuildStart = nanoseconds()
            for container in containers { _ = try await container.start() }
            let rebuild = Double(nanoseconds() - rebuildStart)
            if index >= local.warmup {
                containerSamples.append(elapsed / Double(size * builds) / 1_000)
                floorSamples.append(floor / Double(size * builds) / 1_000)
                ratios.append(elapsed / floor)
                rebuildRatios.append(rebuild / floor)
            }
        }
        let median = Summary(containerSamples).median
        perNodeAt[size] = median
        floorPerNodeAt[size] = Summary(floorSamples).median
        let ratio = Summary(ratios).median
        let fanIn = format(dag.averageFanIn)
        rows.append(
            Row(
                "scheduling", "\(size) nodes (fan-in \(fanIn)): start() to snapshot, per node", unit: "µs/node",
                containerSamples, goal: size == 10_000 ? "≤ 5 µs" : nil,
                met: settings.smoke || size != 10_000 ? nil : median <= 5))
        rows.append(
            Row(
                "scheduling", "\(size) nodes: floor, bare task-group scheduler, per node", unit: "µs/node", floorSamples
            ))
        rows.append(
            Row(
                "scheduling", "\(size) nodes: ratio container / bare scheduler", unit: "×", ratios,
                goal: size == 10_000 ? "≤ 1.2×" : nil, met: settings.smoke || size != 10_000 ? nil : ratio <= 1.2))
        rows.append(
            Row(
                "scheduling", "\(size) nodes: ratio rebuild after reset() (same container) / bare scheduler",
                unit: "×", rebuildRatios))
    }
    if let small = perNodeAt[sizes.first!], let large = perNodeAt[sizes.last!] {
        let growth = large / small
        rows.append(
            Row(
                "scheduling", "linearity: per-node cost at \(sizes.last!) / at \(sizes.first!)", unit: "×", [growth],
                goal: "≤ 1.2×", met: settings.smoke ? nil : growth <= 1.2))
    }
    if let small = floorPerNodeAt[sizes.first!], let large = floorPerNodeAt[sizes.last!] {
        rows.append(
            Row(
                "scheduling", "floor linearity: bare scheduler per node at \(sizes.last!) / at \(sizes.first!)",
                unit: "×", [large / small]))
    }
    return rows
}

/// Scenario 5: wall time of a build with fixed node durations over its critical path.
func criticalPathScenario(_ settings: BenchSettings) async throws -> [Row] {
    let size = settings.size(500, smoke: 60)
    let dag = RandomDAG(nodes: size, fanIn: 3, seed: 11)
    var generator = SplitMix64(seed: 17)
    let durations = (0..<size).map { _ in Int.random(in: 2...20, using: &generator) }
    let specs = dag.specs(provider: "simulated") { ServiceOptions(["durationMs": .int(durations[$0])]) }
    let graph = try ServiceGraph(specs, registry: .standard)
    let critical = dag.criticalPath(durations.map(Double.init)) * 1e6  // ns
    let samples = settings.smoke ? 2 : max(5, settings.samples / 2)
    var ratios: [Double] = []
    var actualRatios: [Double] = []
    var walls: [Double] = []
    for _ in 0..<samples {
        let container = ServiceContainer(graph: graph)
        let start = nanoseconds()
        let services = try await container.start()
        let wall = Double(nanoseconds() - start)
        // The same critical path over the durations the providers really took (sleeps overshoot).
        let actual = services.report.nodes.map { node -> Double in
            if case .succeeded(let duration) = node.outcome {
                return duration.milliseconds * 1e6
            }
            return 0
        }
        walls.append(wall / 1e6)
        ratios.append(wall / critical)
        actualRatios.append(wall / dag.criticalPath(actual))
    }
    let ratio = Summary(ratios).median
    return [
        Row(
            "criticalpath", "\(size) nodes, 2–20 ms each: wall time (critical path \(format(critical / 1e6)) ms)",
            unit: "ms", walls),
        Row(
            "criticalpath", "wall / critical path of the nominal durations", unit: "×", ratios, goal: "≤ 1.05",
            met: settings.smoke ? nil : ratio <= 1.05),
        Row("criticalpath", "wall / critical path of the measured provider durations", unit: "×", actualRatios),
    ]
}
