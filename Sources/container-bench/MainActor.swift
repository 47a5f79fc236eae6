import Container
import Foundation

// Scenario 17 (issue 21): main-actor services. (a) Six independent main-actor nodes of 10 ms
// of blocking work on the main actor and six background nodes of 10 ms: the build's wall time
// against the main actor's total work (the background nodes hide behind it). (b) What a hop to
// the main actor costs a build, per batch and per node inside a batch, against a bare
// `await MainActor.run {}`.

/// A trivial value of a node.
private func key(_ name: String) -> ServiceKey<Int> { ServiceKey(name) }

/// Blocks the calling thread for `milliseconds` (the simulated work: on the main actor it holds
/// the main actor, as a main-thread setup would).
private func blockingWork(milliseconds: Double) -> Int {
    Thread.sleep(forTimeInterval: milliseconds / 1_000)
    return 1
}

/// Scenario 17: main-actor services.
func mainActorScenario(_ settings: BenchSettings) async throws -> [Row] {
    var rows = try await mixedBuild(settings)
    rows += try await hopCost(settings)
    return rows
}

/// (a) The build of 6 main-actor and 6 background nodes of 10 ms each.
private func mixedBuild(_ settings: BenchSettings) async throws -> [Row] {
    let count = settings.size(6, smoke: 2)
    let milliseconds = settings.smoke ? 1.0 : 10.0
    var specs = (0..<count).map { index in
        ServiceSpec(mainActor: key("main\(index)")) { _ in blockingWork(milliseconds: milliseconds) }
    }
    specs += (0..<count).map { index in
        ServiceSpec(key("background\(index)"), priority: .background) { _ in blockingWork(milliseconds: milliseconds) }
    }
    let graph = try ServiceGraph(specs)
    var walls: [Double] = []
    var mainWork: [Double] = []
    var ratios: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        let container = ServiceContainer(graph: graph)
        let start = nanoseconds()
        let services = try await container.start()
        let wall = Double(nanoseconds() - start) / 1e6
        let report = services.report
        guard report.mainActorBatches == 1 else {
            throw BenchError(message: "the \(count) ready main-actor nodes took \(report.mainActorBatches) hops, not 1")
        }
        let work = report.mainActorTime.milliseconds
        try await container.shutdown()
        guard index >= settings.warmup else { continue }
        walls.append(wall)
        mainWork.append(work)
        ratios.append(wall / work)
    }
    let ratio = Summary(ratios).median
    return [
        Row("mainactor", "(a) \(count) main-actor + \(count) background nodes of 10 ms: wall", unit: "ms", walls),
        Row("mainactor", "(a) the main actor's work (BuildReport.mainActorTime)", unit: "ms", mainWork),
        Row(
            "mainactor", "(a) wall / the main actor's work", unit: "×", ratios, goal: "≤ 1.1×",
            met: settings.smoke ? nil : ratio <= 1.1),
    ]
}

/// (b) The cost of a build's hop to the main actor: one trivial node on the main actor against
/// the same on the pool (per batch), a batch of many against a batch of one (per node), both
/// against a bare `await MainActor.run {}` from a task of the pool.
private func hopCost(_ settings: BenchSettings) async throws -> [Row] {
    let batch = settings.size(64, smoke: 4)
    let builds = settings.size(200, smoke: 10)
    func graph(_ nodes: Int, mainActor: Bool) throws -> ServiceGraph {
        try ServiceGraph(
            (0..<nodes).map { index in
                mainActor
                    ? ServiceSpec(mainActor: key("n\(index)")) { _ in index }
                    : ServiceSpec(key("n\(index)")) { _ in index }
            })
    }
    let oneMain = try graph(1, mainActor: true)
    let onePool = try graph(1, mainActor: false)
    let manyMain = try graph(batch, mainActor: true)
    let manyPool = try graph(batch, mainActor: false)

    /// Microseconds per build of `graph` in a new container (made before the clock starts).
    func perBuild(_ graph: ServiceGraph) async throws -> Double {
        let containers = (0..<builds).map { _ in ServiceContainer(graph: graph) }
        let start = nanoseconds()
        for container in containers {
            let services = try await container.start()
            if services.report.mainActorBatches > 1 { throw BenchError(message: "a batch took more than one hop") }
        }
        return Double(nanoseconds() - start) / Double(builds) / 1_000
    }

    var mainBuilds: [Double] = []
    var poolBuilds: [Double] = []
    var batchBuilds: [Double] = []
    var poolBatchBuilds: [Double] = []
    var floors: [Double] = []
    for index in 0..<(settings.warmup + settings.samples) {
        let main = try await perBuild(oneMain)
        let pool = try await perBuild(onePool)
        let many = try await perBuild(manyMain)
        let manyOnThePool = try await perBuild(manyPool)
        let start = nanoseconds()
        for _ in 0..<builds { await MainActor.run {} }
        let floor = Double(nanoseconds() - start) / Double(builds) / 1_000
        guard index >= settings.warmup else { continue }
        mainBuilds.append(main)
        poolBuilds.append(pool)
        batchBuilds.append(many)
        poolBatchBuilds.append(manyOnThePool)
        floors.append(floor)
    }
    let perBatch = zip(mainBuilds, poolBuilds).map { $0 - $1 }
    let perNode = zip(batchBuilds, mainBuilds).map { ($0 - $1) / Double(batch - 1) }
    let perPoolNode = zip(poolBatchBuilds, poolBuilds).map { ($0 - $1) / Double(batch - 1) }
    return [
        Row("mainactor", "(b) build of 1 main-actor node (no work)", unit: "µs", mainBuilds),
        Row("mainactor", "(b) build of 1 pool node (no work)", unit: "µs", poolBuilds),
        Row("mainactor", "(b) hop per batch: main-actor build − pool build", unit: "µs", perBatch),
        Row("mainactor", "(b) floor: await MainActor.run {} from a pool task", unit: "µs", floors),
        Row("mainactor", "(b) hop per batch / floor", unit: "×", zip(perBatch, floors).map { $0 / $1 }),
        Row("mainactor", "(b) build of \(batch) main-actor nodes in one batch", unit: "µs", batchBuilds),
        Row("mainactor", "(b) per node inside a batch (after the first)", unit: "µs", perNode),
        Row("mainactor", "(b) per node inside a batch / floor", unit: "×", zip(perNode, floors).map { $0 / $1 }),
        Row("mainactor", "(b) per node of \(batch) independent pool nodes (after the first)", unit: "µs", perPoolNode),
    ]
}
