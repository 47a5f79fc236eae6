import Container
import Plugins

/// Scenario 11: a reload that changes one leaf of a large graph, and a reset that invalidates
/// one leaf, against a full rebuild of the same graph in the same container (issue 12).
///
/// The graph is the scheduling scenario's random DAG with no-work providers; its last node has
/// no dependents (every dependency is an earlier node), so changing its options rebuilds that
/// node alone. Each round measures, on one ready container: `reset()` + `start()` (every node
/// rebuilt, the floor), `reload` to the other version of the graph + `start()`, and
/// `reset(invalidating: [leaf])` + `start()`. The new graph is validated before the clock
/// starts: its cost is a row of its own, since a reload from a config pays it too.
/// A ready container on version 0 of the scenario's graph, and both versions (the last
/// node's options differ).
struct ReloadFixture {
    let container: ServiceContainer
    let versions: [ServiceGraph]
    let leaf: String
    /// How long validating each version took (`ServiceGraph(specs, registry:)`), in ms.
    let validations: [Double]

    static func make(size: Int) async throws -> ReloadFixture {
        var registry = ProviderRegistry()
        try registry.register(NoWorkProvider())
        let dag = RandomDAG(nodes: size, fanIn: 3, seed: 5)
        let leaf = size - 1
        precondition(dag.dependents[leaf].isEmpty, "the last node of the DAG has no dependents")
        var validations: [Double] = []
        var versions: [ServiceGraph] = []
        for version in 0..<2 {
            let specs = dag.specs(provider: "nowork") { node in
                node == leaf ? ServiceOptions(["version": .int(version)]) : ServiceOptions()
            }
            let start = nanoseconds()
            versions.append(try ServiceGraph(specs, registry: registry))
            validations.append(Double(nanoseconds() - start) / 1e6)
        }
        let container = ServiceContainer(graph: versions[0])
        _ = try await container.start()
        return ReloadFixture(
            container: container, versions: versions, leaf: RandomDAG.name(leaf), validations: validations)
    }
}

func reloadScenario(_ settings: BenchSettings) async throws -> [Row] {
    let size = settings.size(10_000, smoke: 1_000)
    let fixture = try await ReloadFixture.make(size: size)
    let container = fixture.container
    let versions = fixture.versions
    let leafName = fixture.leaf
    let validations = fixture.validations
    var current = 0
    var rebuilds: [Double] = []
    var reloads: [Double] = []
    var invalidations: [Double] = []
    var reloadRatios: [Double] = []
    var reloadAlone: [Double] = []
    var resetAlone: [Double] = []
    var invalidationRatios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        // The floor: every node rebuilt, in the same container.
        let rebuildStart = nanoseconds()
        try await container.reset()
        let rebuilt = try await container.start()
        let rebuild = Double(nanoseconds() - rebuildStart)
        precondition(rebuilt.report.nodes.count { $0.outcome.isSucceeded } == size, "a full rebuild builds every node")

        current = 1 - current
        let reloadStart = nanoseconds()
        let report = try await container.reload(versions[current])
        let reloadReturned = nanoseconds()
        let reloaded = try await container.start()
        let reload = Double(nanoseconds() - reloadStart)
        precondition(report.rebuilt == [leafName], "the reload rebuilds the changed leaf alone")
        precondition(reloaded.report.nodes.count { $0.outcome.isSucceeded } == 1, "one node built after the reload")

        let invalidationStart = nanoseconds()
        try await container.reset(invalidating: [leafName])
        let resetReturned = nanoseconds()
        let invalidated = try await container.start()
        let invalidation = Double(nanoseconds() - invalidationStart)
        precondition(invalidated.report.nodes.count { $0.outcome.isSucceeded } == 1, "one node built after the reset")

        if index >= settings.warmup {
            rebuilds.append(rebuild / 1e6)
            reloads.append(reload / 1e3)
            reloadAlone.append(Double(reloadReturned - reloadStart) / 1e3)
            resetAlone.append(Double(resetReturned - invalidationStart) / 1e3)
            invalidations.append(invalidation / 1e3)
            reloadRatios.append(rebuild / reload)
            invalidationRatios.append(rebuild / invalidation)
        }
    }
    try await container.shutdown()

    let reloadRatio = Summary(reloadRatios).median
    let invalidationRatio = Summary(invalidationRatios).median
    return [
        Row(
            "reload", "\(size) nodes: floor, full rebuild (reset() + start()) in the same container", unit: "ms",
            rebuilds),
        Row("reload", "\(size) nodes: reload changing one leaf's options + start()", unit: "µs", reloads),
        Row("reload", "  of which reload() until it returns", unit: "µs", reloadAlone),
        Row(
            "reload", "ratio full rebuild / reload of one leaf (per round)", unit: "×", reloadRatios, goal: "≥ 100×",
            met: settings.smoke ? nil : reloadRatio >= 100),
        Row("reload", "\(size) nodes: reset(invalidating: [one leaf]) + start()", unit: "µs", invalidations),
        Row("reload", "  of which reset(invalidating:) until it returns", unit: "µs", resetAlone),
        Row(
            "reload", "ratio full rebuild / reset(invalidating:) of one leaf (per round)", unit: "×",
            invalidationRatios,
            goal: "≥ 100×", met: settings.smoke ? nil : invalidationRatio >= 100),
        Row(
            "reload", "\(size) nodes: ServiceGraph(specs, registry:) of the new version (not in the reload figure)",
            unit: "ms", validations),
    ]
}

extension NodeOutcome {
    /// Whether the node was built in this attempt.
    fileprivate var isSucceeded: Bool {
        if case .succeeded = self { true } else { false }
    }
}
