import Container
import Foundation
import Plugins

// `--profile KIND`: one operation repeated, nothing timed, for `valgrind --tool=callgrind`, whose
// instruction counts do not depend on the machine's load. Run KIND and its `-setup` twin and
// subtract: what is left is the operation's instructions (see BENCHMARKS.md, "Profiling").
//
//     valgrind --tool=callgrind .build/release/container-bench --profile scheduling-container --size 10000
//     valgrind --tool=callgrind .build/release/container-bench --profile scheduling-setup --size 10000

/// An operation to profile: `prepare` runs once (counted in the `-setup` twin as well), `operation` `repeats` times.
struct ProfileKind: Sendable {
    let id: String
    let run: @Sendable (_ size: Int, _ repeats: Int, _ setupOnly: Bool) async throws -> Void
}

let profileKinds: [ProfileKind] = [
    ProfileKind(id: "scheduling-container") { size, repeats, setupOnly in
        var registry = ProviderRegistry()
        try registry.register(NoWorkProvider())
        let dag = RandomDAG(nodes: size, fanIn: 3, seed: 5)
        let graph = try ServiceGraph(dag.specs(provider: "nowork"), registry: registry)
        let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
        guard !setupOnly else { return }
        for container in containers { _ = try await container.start() }
    },
    ProfileKind(id: "scheduling-floor") { size, repeats, setupOnly in
        var registry = ProviderRegistry()
        try registry.register(NoWorkProvider())
        let dag = RandomDAG(nodes: size, fanIn: 3, seed: 5)
        let graph = try ServiceGraph(dag.specs(provider: "nowork"), registry: registry)
        let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
        withExtendedLifetime(containers) {}
        guard !setupOnly else { return }
        for _ in 0..<repeats { _ = await bareScheduler(dag) }
    },
    ProfileKind(id: "joiners-container") { size, repeats, setupOnly in
        guard !setupOnly else { return }
        for _ in 0..<repeats { _ = try await joinersContainerRound(callers: size, counter: nil) }
    },
    ProfileKind(id: "joiners-floor") { size, repeats, setupOnly in
        guard !setupOnly else { return }
        for _ in 0..<repeats { _ = await joinersFloorRound(callers: size) }
    },
    ProfileKind(id: "scope-open") { size, repeats, setupOnly in
        let fixture = try await ScopeFixture.make()
        guard !setupOnly else { return }
        for round in 0..<repeats * size {
            let instance = try fixture.container.openScope("push", id: "p\(round)")
            _ = try await instance.start()
            try await instance.close()
        }
    },
    ProfileKind(id: "transition") { size, repeats, setupOnly in
        // The fixed cost of one transition of the state machine (an event that does nothing).
        let fixture = try await ScopeFixture.make()
        guard !setupOnly else { return }
        var total = 0
        for _ in 0..<repeats * size { total &+= fixture.container._emptyTransition() }
        if total == -1 { print(total) }
    },
    ProfileKind(id: "demand-closure") { size, repeats, setupOnly in
        var generator = SeededGenerator(state: 20)
        let graph = try demandGraph(others: size - 5, chainPolicy: .eager, generator: &generator)
        let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
        guard !setupOnly else { return }
        for container in containers { _ = try await container.start() }
    },
    ProfileKind(id: "demand-overlap") { size, repeats, setupOnly in
        var generator = SeededGenerator(state: 21)
        let (graph, requests, _) = try overlappingRequests(size: size, generator: &generator)
        let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
        guard !setupOnly else { return }
        for container in containers {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for request in requests {
                    let keys = request.map { ServiceKey<BenchService>($0).erased }
                    group.addTask { _ = try await container.start(needs: keys) }
                }
                try await group.waitForAll()
            }
        }
    },
    ProfileKind(id: "demand-union") { size, repeats, setupOnly in
        var generator = SeededGenerator(state: 21)
        let (graph, _, roots) = try overlappingRequests(size: size, generator: &generator)
        let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
        guard !setupOnly else { return }
        let keys = roots.map { ServiceKey<BenchService>($0).erased }
        for container in containers { _ = try await container.start(needs: keys) }
    },
    // What a request costs whatever it needs: 100 concurrent requests for the same five services
    // (each joins one demand) against one request for them (see BENCHMARKS.md, scenario 13).
    ProfileKind(id: "demand-joined") { size, repeats, setupOnly in
        try await sameRequests(size: size, repeats: repeats, callers: 100, setupOnly: setupOnly)
    },
    ProfileKind(id: "demand-one") { size, repeats, setupOnly in
        try await sameRequests(size: size, repeats: repeats, callers: 1, setupOnly: setupOnly)
    },
    ProfileKind(id: "demand-cold") { _, repeats, setupOnly in
        guard !setupOnly else { return }
        var sum = 0
        for _ in 0..<repeats { sum &+= try await coldStart() }
        if sum == -1 { print(sum) }
    },
    ProfileKind(id: "scope-start") { size, repeats, setupOnly in
        let fixture = try await ScopeFixture.make()
        guard !setupOnly else { return }
        var instances: [ScopeInstance] = []
        for round in 0..<repeats * size {
            let instance = try fixture.container.openScope("push", id: "p\(round)")
            _ = try await instance.start()
            instances.append(instance)
        }
        withExtendedLifetime(instances) {}
    },
    ProfileKind(id: "nested-start") { size, repeats, setupOnly in
        let (_, _, scene) = try await nestedFixture()
        guard !setupOnly else { return }
        var instances: [ScopeInstance] = []
        for round in 0..<repeats * size {
            let instance = try scene.openScope("detail", id: "d\(round)")
            _ = try await instance.start()
            instances.append(instance)
        }
        withExtendedLifetime(instances) {}
    },
    ProfileKind(id: "scope-open-only") { size, repeats, setupOnly in
        let fixture = try await ScopeFixture.make()
        guard !setupOnly else { return }
        var instances: [ScopeInstance] = []
        for round in 0..<repeats * size { instances.append(try fixture.container.openScope("push", id: "p\(round)")) }
        withExtendedLifetime(instances) {}
    },
    ProfileKind(id: "reload-leaf") { size, repeats, setupOnly in
        let fixture = try await ReloadFixture.make(size: size)
        guard !setupOnly else { return }
        for round in 0..<repeats {
            try await fixture.container.reload(fixture.versions[(round + 1) % 2])
            _ = try await fixture.container.start()
        }
    },
    ProfileKind(id: "reset-leaf") { size, repeats, setupOnly in
        let fixture = try await ReloadFixture.make(size: size)
        guard !setupOnly else { return }
        for _ in 0..<repeats {
            try await fixture.container.reset(invalidating: [fixture.leaf])
            _ = try await fixture.container.start()
        }
    },
    ProfileKind(id: "sync-unbuilt") { size, repeats, setupOnly in
        let graph = try synchronousTriples(size)
        let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
        guard !setupOnly else { return }
        var sum = 0
        for container in containers {
            for triple in 0..<size { sum &+= try container.resolveNow(tripleKey(triple, 2)).number }
        }
        if sum == -1 { print(sum) }
    },
    ProfileKind(id: "validate-cold") { _, repeats, setupOnly in
        // The validation of (c)'s ten specs alone, the specs made once.
        let specs = coldStartSpecs()
        guard !setupOnly else { return }
        var count = 0
        for _ in 0..<repeats { count &+= try ServiceGraph(specs).serviceNames.count }
        if count == -1 { print(count) }
    },
    ProfileKind(id: "config-load") { size, repeats, setupOnly in
        // Scenario 6's `ConfigLoader.load` (read, parse, decode, validate), the file written once.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try writeSimulatedConfig(count: size, directory: directory)
        guard !setupOnly else { return }
        var count = 0
        for _ in 0..<repeats { count &+= try ConfigLoader.load(path: path).specs.count }
        if count == -1 { print(count) }
    },
    ProfileKind(id: "start-ready") { size, repeats, setupOnly in
        // Scenario 2: `await container.start()` on a ready container, `size * repeats` times.
        let container = try ServiceContainer([ServiceSpec(ServiceKey<Int>("a")) { _ in 1 }])
        _ = try await container.start()
        guard !setupOnly else { return }
        var count = 0
        for _ in 0..<size * repeats { count &+= try await container.start().generation }
        if count == -1 { print(count) }
    },
    ProfileKind(id: "scope-floor") { size, repeats, setupOnly in
        let fixture = try await ScopeFixture.make()
        guard !setupOnly else { return }
        for _ in 0..<repeats * size { _ = await fixture.bareScopeBuild() }
    },
]

/// Runs `--profile KIND` (or `KIND-setup`: its preparation alone) and exits.
/// `callers` concurrent requests for the first request of (b), on each of `repeats` containers.
private func sameRequests(size: Int, repeats: Int, callers: Int, setupOnly: Bool) async throws {
    var generator = SeededGenerator(state: 21)
    let (graph, requests, _) = try overlappingRequests(size: size, generator: &generator)
    let containers = (0..<repeats).map { _ in ServiceContainer(graph: graph) }
    guard !setupOnly else { return }
    for container in containers {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                let keys = requests[0].map { ServiceKey<BenchService>($0).erased }
                group.addTask { _ = try await container.start(needs: keys) }
            }
            try await group.waitForAll()
        }
    }
}

func runProfile(_ name: String, size: Int, repeats: Int) async {
    let setupOnly = name.hasSuffix("-setup")
    let base = setupOnly ? String(name.dropLast("-setup".count)) : name
    guard let kind = profileKinds.first(where: { $0.id == base }) else {
        usage("unknown profile '\(name)': \(profileKinds.map(\.id).joined(separator: ", ")) (each also with -setup)")
    }
    do {
        try await kind.run(size, repeats, setupOnly)
    } catch {
        print("profile \(name) failed: \(error)")
        exit(1)
    }
}
