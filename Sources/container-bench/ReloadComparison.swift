import Container
import Plugins

/// Scenario 12: what comparing declarations costs a reload. A graph of 2,000 services declared
/// as a config would (options with a number, a path, a list and a label; a timeout and a retry
/// policy on some), and a second version that changes one leaf's options. Measured on one ready
/// container alternating between the versions: `changes(from:)` alone (what the comparison
/// costs), `reload()` until it returns (the figure the comparison is chosen by), and `reload()` +
/// `start()`. Validating a version is a row of its own (the fingerprints are made there). The
/// alternative to fingerprints, a synthesized `==` over the same fields, is measured on the
/// specs: one row compares the 2,000 pairs, as `changes(from:)` would.
func reloadComparisonScenario(_ settings: BenchSettings) async throws -> [Row] {
    let size = settings.size(2_000, smoke: 200)
    var registry = ProviderRegistry()
    try registry.register(NoWorkProvider())
    let dag = RandomDAG(nodes: size, fanIn: 3, seed: 7)
    let leaf = size - 1
    precondition(dag.dependents[leaf].isEmpty, "the last node of the DAG has no dependents")
    var versions: [ServiceGraph] = []
    var declarations: [[SpecDeclaration]] = []
    var validations: [Double] = []
    for version in 0..<2 {
        // Specs made anew for each version, as a config loaded twice makes them: no storage shared.
        let specs = dag.specs(provider: "nowork") { node in
            ServiceOptions.options(node: node, version: node == leaf ? version : 0)
        }.enumerated().map { node, spec in
            var spec = spec
            if node % 3 == 0 { spec.timeout = .milliseconds(500 + node % 100) }
            if node % 5 == 0 { spec.retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50)) }
            return spec
        }
        declarations.append(specs.map(SpecDeclaration.init))
        let start = nanoseconds()
        versions.append(try ServiceGraph(specs, registry: registry))
        validations.append(Double(nanoseconds() - start) / 1e6)
    }
    let leafName = RandomDAG.name(leaf)

    // `changes(from:)` alone: a batch of calls per sample, so that a sample is well above the clock's resolution.
    let batch = 50
    let comparisons = repeatSamples(settings) { () -> Double in
        let start = nanoseconds()
        for index in 0..<batch {
            let changes = versions[1 - index % 2].changes(from: versions[index % 2])
            precondition(changes.changed == [leafName], "one leaf changed")
        }
        return Double(nanoseconds() - start) / 1e3 / Double(batch)
    }

    let equalities = repeatSamples(settings) { () -> Double in
        let start = nanoseconds()
        for index in 0..<batch {
            let (new, old) = (declarations[1 - index % 2], declarations[index % 2])
            let changed = new.indices.filter { new[$0] != old[$0] }
            precondition(changed == [leaf], "one leaf changed")
        }
        return Double(nanoseconds() - start) / 1e3 / Double(batch)
    }

    let container = ServiceContainer(graph: versions[0])
    _ = try await container.start()
    var current = 0
    var reloads: [Double] = []
    var rounds: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        current = 1 - current
        let start = nanoseconds()
        let report = try await container.reload(versions[current])
        let returned = nanoseconds()
        _ = try await container.start()
        let ended = nanoseconds()
        precondition(report.rebuilt == [leafName], "the reload rebuilds the changed leaf alone")
        if index >= settings.warmup {
            reloads.append(Double(returned - start) / 1e3)
            rounds.append(Double(ended - start) / 1e3)
        }
    }
    try await container.shutdown()

    return [
        Row("changes", "\(size) services: new.changes(from: old), one leaf's options changed", unit: "µs", comparisons),
        Row(
            "changes", "\(size) services: the alternative, synthesized == of every pair of declarations", unit: "µs",
            equalities),
        Row("changes", "\(size) services: reload() of one changed leaf, until it returns", unit: "µs", reloads),
        Row("changes", "\(size) services: reload() of one changed leaf + start()", unit: "µs", rounds),
        Row("changes", "\(size) services: ServiceGraph(specs, registry:) of a version", unit: "ms", validations),
    ]
}

/// The fields a reload compares, as a value with a synthesized `Hashable`: what replacing the
/// fingerprints with such a value would compare per service.
private struct SpecDeclaration: Hashable {
    let name: String
    let providerID: String
    let lifetime: ServiceSpec.Lifetime
    let timeout: Duration?
    let defaultFailure: FailureKind?
    let retry: RetryPolicy
    let dependsOn: [String]
    let group: String?
    let options: ServiceOptions

    init(_ spec: ServiceSpec) {
        name = spec.name
        providerID = spec.provider.id
        lifetime = spec.lifetime
        timeout = spec.timeout
        defaultFailure = spec.defaultFailure
        retry = spec.retry
        dependsOn = spec.dependsOn
        group = spec.group
        options = spec.options
    }
}

extension ServiceOptions {
    /// Options like a config's: a number, a path under a path root, a list and a label.
    fileprivate static func options(node: Int, version: Int) -> ServiceOptions {
        ServiceOptions(
            [
                "durationMs": .int(node % 7), "path": .string("$data/cache/\(RandomDAG.name(node)).sqlite"),
                "outcomes": .array([.string("ok"), .string("ok")]),
                "label": .string("service \(node) of the start-up graph"), "version": .int(version),
            ], pathRoots: ["data": "/tmp/container-bench"])
    }
}
