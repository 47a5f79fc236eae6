import Container

/// Scenario 7: memory across generations, and the heap bytes a ready generation holds per node.
func memoryScenario(_ settings: BenchSettings) async throws -> [Row] {
    var registry = ProviderRegistry()
    try registry.register(NoWorkProvider())
    let nodes = 100
    let graph = try ServiceGraph(
        RandomDAG(nodes: nodes, fanIn: 3, seed: 3).specs(provider: "nowork"), registry: registry)
    let container = ServiceContainer(graph: graph)
    let generations = settings.size(1_000, smoke: 50)

    // Warm up the allocator and the runtime's caches, then measure.
    for _ in 0..<50 {
        _ = try await container.start()
        try await container.reset()
    }
    weak var firstSnapshot: AppServices?
    let rssBefore = residentBytes()
    let heapBefore = mallocedBytes()
    for generation in 0..<generations {
        let services = try await container.start()
        if generation == 0 { firstSnapshot = services }
        try await container.reset()
    }
    let rssGrowth = Double(residentBytes() - rssBefore) / 1_048_576
    let heapGrowth = mallocedBytes().flatMap { after in heapBefore.map { Double(after - $0) / 1_048_576 } }
    precondition(firstSnapshot == nil, "a retired generation's snapshot must be freed")

    // Bytes per node: the heap a ready generation holds (snapshot, report, boxes, the container's pool).
    let size = settings.size(10_000, smoke: 1_000)
    let bigGraph = try ServiceGraph(
        RandomDAG(nodes: size, fanIn: 3, seed: 4).specs(provider: "nowork"), registry: registry)
    let bigContainer = ServiceContainer(graph: bigGraph)
    let heapIdle = mallocedBytes()
    let snapshot = try await bigContainer.start()
    let heapReady = mallocedBytes()
    withExtendedLifetime(snapshot) {}

    var rows = [
        Row(
            "memory", "RSS growth over \(generations) generations built and reset (\(nodes) nodes)", unit: "MB",
            [rssGrowth], goal: "≤ 1 MB", met: settings.smoke ? nil : rssGrowth <= 1)
    ]
    if let heapGrowth {
        rows.append(Row("memory", "malloc'd bytes growth over the same generations", unit: "MB", [heapGrowth]))
    }
    if let heapIdle, let heapReady {
        rows.append(
            Row(
                "memory", "heap held by a ready generation per node (\(size) nodes, Int values)", unit: "B/node",
                [Double(heapReady - heapIdle) / Double(size)]))
    }
    rows.append(Row("memory", "retired snapshot freed (weak reference is nil)", unit: "bool", [1]))
    return rows
}
