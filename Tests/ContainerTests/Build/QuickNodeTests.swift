import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// Nodes known to be quick run in the task that made them ready (``SchedulerTuning/inlineBudget``).
///
/// Each test records the nodes' last run times itself (``NodeRunTimes/record(_:took:)``) before
/// the build, so which task runs a node does not depend on how fast this machine is: a node's
/// place is decided when it becomes ready, before its own run records a new time.
@Suite("Scheduling: quick nodes run in the build's own task")
struct QuickNodeTests {
    /// A root and three leaves that depend on it.
    private static let fanOut = ["root": [String](), "a": ["root"], "b": ["root"], "c": ["root"]]

    /// A graph of `dependencies` whose providers note the task they ran in (the hash of its
    /// `UnsafeCurrentTask`) and run `body` (default: nothing).
    private func graph(
        _ dependencies: [String: [String]], ranIn: Locked<[String: Int]>, log: OrderLog = OrderLog(),
        body: @escaping @Sendable (String) async -> Void = { _ in }
    ) throws -> ServiceGraph {
        let specs = dependencies.keys.sorted().map { name in
            ServiceSpec(ServiceKey<Int>(name), dependsOn: dependencies[name]!) { _ in
                let task = withUnsafeCurrentTask { $0?.hashValue } ?? 0
                ranIn.withLock { $0[name] = task }
                log.append(name)
                await body(name)
                return 1
            }
        }
        return try ServiceGraph(specs)
    }

    /// Records `times` as the last run times of the named nodes of `container`'s graph.
    private func record(_ times: [String: Duration], in container: ServiceContainer) {
        let graph = container.core.graph
        for (name, time) in times {
            container.core.runTimes.record(graph.nodes.firstIndex { $0.name == name }!, took: time)
        }
    }

    /// Builds `graph` once in a new container whose nodes last took `times`; returns how many of
    /// the leaves `a`, `b`, `c` ran in the task `root` ran in (the only node able to run, so it
    /// runs in the build's first task in every case, and that task lives until the build ends,
    /// so no other task can have its identity).
    private func leavesInline(
        _ graph: ServiceGraph, _ ranIn: Locked<[String: Int]>, times: [String: Duration] = [:],
        tuning: SchedulerTuning = .default, policy: BuildPolicy = .default, traced: Bool = false
    ) async throws -> Int {
        let container = ServiceContainer(
            graph: graph, policy: policy, tuning: tuning, trace: traced ? [TraceWatcher()] : [])
        record(times, in: container)
        _ = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        let ran = ranIn.withLock { $0 }
        #expect(ran.count == 4)
        return ["a", "b", "c"].count { ran[$0] != nil && ran[$0] == ran["root"] }
    }

    @Test("Leaves whose last runs were quick all run in the build's task; unknown ones get child tasks")
    func quickLeavesRunInline() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let graph = try graph(Self.fanOut, ranIn: ranIn)
        // Never ran: each gets a child task.
        #expect(try await leavesInline(graph, ranIn) == 0)
        let quick: [String: Duration] = ["a": .microseconds(1), "b": .microseconds(1), "c": .microseconds(1)]
        #expect(try await leavesInline(graph, ranIn, times: quick) == 3)
    }

    @Test("The queue of quick nodes holds at most the budget of expected work")
    func budgetBoundsTheQueue() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let graph = try graph(Self.fanOut, ranIn: ranIn)
        // 8 µs each in a 20 µs budget: two leaves queue inline, the third gets a child task.
        let eight: [String: Duration] = ["a": .microseconds(8), "b": .microseconds(8), "c": .microseconds(8)]
        #expect(try await leavesInline(graph, ranIn, times: eight) == 2)
        // Over the budget: a slow leaf gets a child task; the two quick ones run inline.
        let oneSlow: [String: Duration] = ["a": .microseconds(1), "b": .milliseconds(5), "c": .microseconds(1)]
        #expect(try await leavesInline(graph, ranIn, times: oneSlow) == 2)
        #expect(ranIn.withLock { $0["b"] != $0["root"] })
        // A larger budget takes all three.
        #expect(
            try await leavesInline(graph, ranIn, times: eight, tuning: SchedulerTuning(inlineBudget: .microseconds(30)))
                == 3)
    }

    @Test("No quick node runs inline with a zero budget or failing fast; tracing changes nothing")
    func inliningOff() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let graph = try graph(Self.fanOut, ranIn: ranIn)
        let quick: [String: Duration] = ["a": .microseconds(1), "b": .microseconds(1), "c": .microseconds(1)]
        // Zero budget: each leaf gets a child task.
        #expect(try await leavesInline(graph, ranIn, times: quick, tuning: .off) == 0)
        #expect(try await leavesInline(graph, ranIn, times: quick, policy: .failFast) == 0)
        // The schedule is the same whether anyone traces it.
        #expect(try await leavesInline(graph, ranIn, times: quick, traced: true) == 3)
    }

    @Test("The budget is clamped to 0...1 ms")
    func budgetIsClamped() {
        #expect(SchedulerTuning(inlineBudget: .seconds(5)).inlineBudget == SchedulerTuning.maximumInlineBudget)
        #expect(SchedulerTuning(inlineBudget: .microseconds(-3)).inlineBudget == .zero)
        #expect(SchedulerTuning.default.inlineBudget == .microseconds(20))
        #expect(SchedulerTuning(inlineBudget: .microseconds(-3)).budget(for: .default) == 0)
        #expect(SchedulerTuning.default.budget(for: .failFast) == 0, "fail-fast builds never run nodes inline")
    }

    @Test("Run times are recorded in nanoseconds, saturating")
    func runTimesSaturate() {
        #expect(NodeRunTimes.nanoseconds(.microseconds(3)) == 3_000)
        #expect(NodeRunTimes.nanoseconds(.seconds(3) + .nanoseconds(7)) == 3_000_000_007)
        #expect(NodeRunTimes.nanoseconds(.seconds(10)) == NodeRunTimes.unknown)
        #expect(NodeRunTimes.nanoseconds(.microseconds(-1)) == 0)
        let times = NodeRunTimes(count: 2)
        #expect(times.last(0) == NodeRunTimes.unknown)
        times.record(1, took: .nanoseconds(250))
        #expect(times.last(1) == 250)
    }

    @Test("A queued quick node never starts once the build is cancelled: it ends cancelled before start")
    func queuedNodesStopOnCancellation() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let log = OrderLog()
        let aStarted = Gate()
        let cancelled = Gate()
        let release = Gate()
        // `a` (first in the queue) holds the build's task until the test has cancelled the
        // build; `b` and `c`, queued behind it, must then never start.
        let graph = try graph(Self.fanOut, ranIn: ranIn, log: log) { name in
            guard name == "a" else { return }
            aStarted.open()
            await withTaskCancellationHandler {
                await release.wait()
            } onCancel: {
                cancelled.open()
            }
        }
        let watcher = TraceWatcher()
        let container = ServiceContainer(graph: graph, trace: [watcher])
        record(["a": .microseconds(1), "b": .microseconds(1), "c": .microseconds(1)], in: container)
        let caller = Task { try await container.start() }
        try await aStarted.wait(timeout: .seconds(60), "a to start")
        #expect(ranIn.withLock { $0["a"] == $0["root"] }, "a runs in the build's first task")
        // A reset cancels the build: its queued nodes must never start.
        let reset = Task { try await container.reset() }
        try await cancelled.wait(timeout: .seconds(60), "the build's cancellation to reach a")
        release.open()
        _ = try await withTimeout(.seconds(60), "the reset") { try await reset.value }
        _ = await caller.result
        let outcomes = Dictionary(
            watcher.events.filter { $0.generation == 1 && $0.kind.isTerminalNodeEvent }.map {
                ($0.kind.node ?? "", $0.kind)
            }, uniquingKeysWith: { first, _ in first })
        #expect(log.count(of: "b") == 0 && log.count(of: "c") == 0, "queued nodes never started")
        #expect(
            !watcher.events.contains { $0.kind.name == "snapshot.published" }, "a cancelled build publishes nothing")
        // `a` returned after the cancellation: committed, it keeps `succeeded` (Coordinator rules).
        if case .nodeSucceeded? = outcomes["a"] {} else { Issue.record("a ended \(String(describing: outcomes["a"]))") }
        for leaf in ["b", "c"] {
            guard case .nodeCancelled(_, .beforeStart)? = outcomes[leaf] else {
                Issue.record("\(leaf) ended \(String(describing: outcomes[leaf])), not cancelled before start")
                continue
            }
        }
    }
}
