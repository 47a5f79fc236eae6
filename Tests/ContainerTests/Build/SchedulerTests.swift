import ContainerTesting
import Synchronization
import Testing

@testable import Container

@Suite("Scheduling: each node as soon as its dependencies are ready (Coordinator rules)")
struct SchedulerTests {
    /// Records, for every node, the sequence numbers of its start and its end.
    final class Timeline: Sendable {
        private let clock = Atomic<Int>(0)
        private let marks = Locked<[String: (start: Int, end: Int, runs: Int)]>([:])
        func started(_ name: String) -> Int {
            let tick = clock.add(1, ordering: .sequentiallyConsistent).newValue
            marks.withLock {
                $0[name, default: (0, 0, 0)].start = tick; $0[name]!.runs += 1
            }
            return tick
        }
        func ended(_ name: String) {
            let tick = clock.add(1, ordering: .sequentiallyConsistent).newValue
            marks.withLock { $0[name]!.end = tick }
        }
        var all: [String: (start: Int, end: Int, runs: Int)] { marks.withLock { $0 } }
    }

    private func run(_ dependencies: [String: [String]]) async throws -> (Timeline, AppServices) {
        let timeline = Timeline()
        let specs = dependencies.keys.sorted().map { name in
            ServiceSpec(ServiceKey<Int>(name), dependsOn: dependencies[name]!) { context in
                _ = timeline.started(name)
                for dependency in dependencies[name]! { _ = try context[ServiceKey<Int>(dependency)] }
                await Task.yield()
                timeline.ended(name)
                return 1
            }
        }
        let container = try ServiceContainer(specs)
        let services = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        return (timeline, services)
    }

    private func check(
        _ dependencies: [String: [String]], _ timeline: Timeline, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let marks = timeline.all
        #expect(marks.count == dependencies.count, sourceLocation: sourceLocation)
        for (name, deps) in dependencies {
            guard let mark = marks[name] else { continue }
            #expect(mark.runs == 1, "\(name) ran \(mark.runs) times", sourceLocation: sourceLocation)
            for dependency in deps {
                let end = marks[dependency]?.end ?? .max
                #expect(end < mark.start, "\(name) started before \(dependency) ended", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("A diamond: the join runs after both branches, every node once")
    func diamond() async throws {
        let graph = ["top": [], "left": ["top"], "right": ["top"], "bottom": ["left", "right"]]
        let (timeline, services) = try await run(graph)
        check(graph, timeline)
        #expect(services.serviceNames.count == 4)
    }

    @Test("A 1,000-node random DAG: every node runs once, after all its dependencies")
    func randomDAG() async throws {
        var random = SplitMix64(seed: 2026)
        var graph: [String: [String]] = [:]
        for index in 0..<1_000 {
            let fanIn = index == 0 ? 0 : Int(random.next() % 4)
            let deps = Set((0..<fanIn).map { _ in Int(random.next() % UInt64(index)) })
            graph["n\(index)"] = deps.sorted().map { "n\($0)" }
        }
        let (timeline, services) = try await run(graph)
        check(graph, timeline)
        #expect(services.report.nodes.allSatisfy { $0.runs == 1 })
    }

    @Test("A node does not wait for unrelated slow nodes (no level-by-level barrier)")
    func noLevelBarrier() async throws {
        // slow (level 0) is held open; a -> b -> c (levels 0..2) must all finish meanwhile.
        let gate = Gate()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("slow")) { _ in
                    await gate.wait(); return 0
                },
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
                ServiceSpec(ServiceKey<Int>("c"), dependsOn: ["b"]) { _ in 3 },
            ], trace: [watcher])
        let build = Task { try await container.start() }
        try await watcher.wait(for: "c to succeed while slow is held") { events in
            events.contains { if case .nodeSucceeded("c", _) = $0.kind { true } else { false } }
        }
        #expect(!watcher.events.contains { if case .nodeSucceeded("slow", _) = $0.kind { true } else { false } })
        gate.open()
        _ = try await withTimeout(.seconds(60), "the build") { try await build.value }
    }

    @Test("Every node has exactly one terminal trace event per attempt, after its start")
    func oneTerminalEventPerNode() async throws {
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in throw TestError() },
                ServiceSpec(ServiceKey<Int>("c"), dependsOn: ["b"]) { _ in 3 },
            ], trace: [watcher])
        await #expect(throws: ContainerError.self) { try await container.start() }
        for name in ["a", "b", "c"] {
            #expect(watcher.events.count { $0.kind.node == name && $0.kind.isTerminalNodeEvent } == 1)
        }
        let names = watcher.events.map(\.kind.name)
        #expect(names.first == "caller.joined")
        #expect(names.firstIndex(of: "build.started")! < names.firstIndex(of: "node.started")!)
        #expect(names.last == "caller.resumed")
        #expect(names.contains("build.failed"))
        let times = watcher.events.map(\.time)
        #expect(times == times.sorted(), "timestamps are monotonic")
    }

    /// Which task ran each node, by name: the hash of its `UnsafeCurrentTask`.
    private func tasks(
        _ dependencies: [String: [String]], policy: BuildPolicy = .default, traced: Bool
    ) async throws -> [String: Int] {
        let ranIn = Locked<[String: Int]>([:])
        let specs = dependencies.keys.sorted().map { name in
            ServiceSpec(ServiceKey<Int>(name), dependsOn: dependencies[name]!) { _ in
                let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
                ranIn.withLock { $0[name] = task }
                return 1
            }
        }
        let container = try ServiceContainer(specs, policy: policy, trace: traced ? [TraceWatcher()] : [])
        _ = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        return ranIn.withLock { $0 }
    }

    // A node runs in the build's own task when a child task would buy no parallelism. `root`
    // runs there in every case, and that task lives until the build ends, so no other task can
    // have its identity meanwhile: a node with the same one ran in it.
    @Test("The only node able to run runs in the build's own task; a node beside running children never does")
    func inlineNodes() async throws {
        let chain = ["root": [], "middle": ["root"], "leaf": ["middle"]]
        for traced in [false, true] {
            let ran = try await tasks(chain, traced: traced)
            #expect(Set(ran.values).count == 1, "every link of a chain runs in the build's task (traced: \(traced))")
        }
        // A fan-out ending the build: each leaf of the three gets a child task, the last to
        // start too (run inline, it would hold back the others' results until it returns: a
        // request may wait for one of them alone), traced or not, failing fast or not.
        let fanOut = ["root": [], "a": ["root"], "b": ["root"], "c": ["root"]]
        let cases: [(policy: BuildPolicy, traced: Bool, inline: Int)] = [
            (.default, false, 0), (.default, true, 0), (.failFast, false, 0),
        ]
        for (policy, traced, inline) in cases {
            let ran = try await tasks(fanOut, policy: policy, traced: traced)
            let build = ran["root"]
            #expect(ran.count == 4)
            #expect(
                ["a", "b", "c"].count { ran[$0] == build } == inline,
                "traced: \(traced), fail fast: \(policy.failureMode == .failFast)")
        }
        // A dependent waits: both leaves of the first wave (`a` and `slow`) get child tasks and
        // `after` starts as soon as `slow` ends.
        let wave = ["root": [], "a": ["root"], "slow": ["root"], "after": ["slow"]]
        let ran = try await tasks(wave, traced: false)
        #expect(ran["a"] != ran["root"] && ran["slow"] != ran["root"])
    }
}
