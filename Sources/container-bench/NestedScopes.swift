import Container
import Foundation

// Scenario 15 (issue 22): nested scopes. Opening and starting an instance of a scope nested
// three deep (account → scene → detail) against an instance of a top-level scope with the same
// three services, on a ready app and ready parents; and 10,000 children of one parent open at
// once (memory per child).

/// The nested benchmark's graph: the app service and the three services of the scope
/// benchmark, once in the top-level scope `push` and once in `detail`, nested in `scene`, nested
/// in `account` (one service each).
private enum NestedKeys {
    static let account = ServiceKey<BenchService>("accountValue")
    static let scene = ServiceKey<BenchService>("sceneValue")
    static let detail = [ServiceKey<BenchService>("detailFirst"), .init("detailSecond"), .init("detailThird")]
}

private func nestedSpecs() -> [ServiceSpec] {
    func three(_ keys: [ServiceKey<BenchService>], in scope: String) -> [ServiceSpec] {
        [
            ServiceSpec(keys[0], dependsOn: ["app"], lifetime: .scope(scope)) { context in
                makeScoped(2, try context[ScopeKeys.app])
            },
            ServiceSpec(keys[1], dependsOn: [keys[0].name], lifetime: .scope(scope)) { context in
                makeScoped(3, try context[keys[0]])
            },
            ServiceSpec(keys[2], dependsOn: [keys[0].name], lifetime: .scope(scope)) { context in
                makeScoped(4, try context[keys[0]])
            },
        ]
    }
    return [
        ServiceSpec(ScopeKeys.app) { _ in BenchService(number: 1) },
        ServiceSpec(NestedKeys.account, dependsOn: ["app"], lifetime: .scope("account")) { context in
            makeScoped(5, try context[ScopeKeys.app])
        },
        ServiceSpec(NestedKeys.scene, dependsOn: ["accountValue"], lifetime: .scope("scene")) { context in
            makeScoped(6, try context[NestedKeys.account])
        },
    ] + three([ScopeKeys.first, ScopeKeys.second, ScopeKeys.third], in: "push") + three(NestedKeys.detail, in: "detail")
}

/// A ready app with a ready `account#ada/scene#window-1` chain to open `detail` instances from.
func nestedFixture() async throws -> (container: ServiceContainer, account: ScopeInstance, scene: ScopeInstance) {
    let graph = try ServiceGraph(
        nestedSpecs(),
        scopes: ["push", "account", .init("scene", parent: "account"), .init("detail", parent: "scene")])
    let container = ServiceContainer(graph: graph)
    _ = try await container.start()
    let account = try container.openScope("account", id: "ada")
    _ = try await account.start()
    let scene = try account.openScope("scene", id: "window-1")
    _ = try await scene.start()
    return (container, account, scene)
}

/// Scenario 15: nested scopes.
func nestedScopesScenario(_ settings: BenchSettings) async throws -> [Row] {
    let (container, account, scene) = try await nestedFixture()

    // (a) Alternating batches: top-level instances of `push`, then `detail` instances in the scene.
    let batch = settings.size(2_000, smoke: 100)
    var topLevel: [Double] = []
    var nested: [Double] = []
    var ratios: [Double] = []
    var round = 0
    for index in 0..<(settings.warmup + settings.samples) {
        func timed(_ open: (Int) throws -> ScopeInstance) async throws -> UInt64 {
            var instances: [ScopeInstance] = []
            instances.reserveCapacity(batch)
            let start = nanoseconds()
            for _ in 0..<batch {
                round += 1
                let instance = try open(round)
                _ = try await instance.start()
                instances.append(instance)
            }
            let elapsed = nanoseconds() - start
            for instance in instances { try await instance.close() }
            return elapsed
        }
        let top = try await timed { try container.openScope("push", id: "p\($0)") }
        let deep = try await timed { try scene.openScope("detail", id: "d\($0)") }
        if index >= settings.warmup {
            topLevel.append(Double(top) / Double(batch) / 1_000)
            nested.append(Double(deep) / Double(batch) / 1_000)
            ratios.append(Double(deep) / Double(top))
        }
    }
    let ratio = Summary(ratios).median
    var rows = [
        Row("nested", "(a) openScope + start() of 3 services, top-level scope, per instance", unit: "µs", topLevel),
        Row("nested", "(a) the same 3 services three scopes deep (account/scene/detail)", unit: "µs", nested),
        Row(
            "nested", "(a) ratio nested / top-level", unit: "×", ratios, goal: "≤ 1.2×",
            met: settings.smoke ? nil : ratio <= 1.2),
    ]

    // (b) 10,000 children of one parent open and started at once: a first round warms the
    // allocator (and closes its parent), the second is measured on a parent of its own.
    let count = settings.size(10_000, smoke: 500)
    for index in 0..<count { _ = try await scene.openScope("detail", id: "warm-\(index)").start() }
    let valueBytes =
        try scene.openInstances(of: "detail").first.flatMap(\.current).map { snapshot in
            try NestedKeys.detail.reduce(0.0) { $0 + Double(mallocSize(of: try snapshot[$1])) }
        } ?? 0
    try await scene.close()
    let parent = try account.openScope("scene", id: "window-2")
    _ = try await parent.start()
    rows += try await manyChildren(of: parent, count: count, settings, valueBytes: valueBytes)
    return rows
}

/// (b) on a fresh parent with a warm allocator: `count` children opened and started, then the parent closed.
private func manyChildren(
    of parent: ScopeInstance, count: Int, _ settings: BenchSettings, valueBytes: Double
) async throws -> [Row] {
    let heapBefore = mallocedBytes()
    var children: [ScopeInstance] = []
    children.reserveCapacity(count)
    for index in 0..<count {
        let child = try parent.openScope("detail", id: "n\(index)")
        _ = try await child.start()
        children.append(child)
    }
    let heapAfter = mallocedBytes()
    let bytesPerChild = heapBefore.flatMap { before in heapAfter.map { Double($0 - before) / Double(count) } } ?? 0
    let closeStart = nanoseconds()
    try await parent.close()
    let closeMs = Double(nanoseconds() - closeStart) / 1e6
    return [
        Row(
            "nested", "(b) \(count) children of one parent, started: malloc'd bytes per child", unit: "B",
            [bytesPerChild], goal: "≤ 2.2 KB + values (\(Int(valueBytes)) B)",
            met: settings.smoke ? nil : bytesPerChild <= 2_200 + valueBytes),
        Row("nested", "(b) closing the parent of \(count) children", unit: "ms", [closeMs]),
    ]
}
