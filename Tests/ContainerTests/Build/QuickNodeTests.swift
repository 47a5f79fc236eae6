import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// Nodes known to be quick run in the build's own task (``BuildPolicy/inlineBudget``).
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

    /// Records `times` as the last run times of the named nodes of `graph`.
    private func record(_ times: [String: Duration], in graph: ServiceGraph) {
        for (name, time) in times { graph.runTimes.record(graph.nodes.firstIndex { $0.name == name }!, took: time) }
    }

    /// Builds `graph` once; returns how many of the leaves `a`, `b`, `c` ran in the build's task
    /// (the task `root` ran in: it is the only node able to run, so it runs there in every case,
    /// and that task lives until the build ends, so no other task can have its identity).
    private func leavesInline(
        _ graph: ServiceGraph, _ ranIn: Locked<[String: Int]>, policy: BuildPolicy = .default, traced: Bool = false
    ) async throws -> Int {
        let container = ServiceContainer(graph: graph, policy: policy, trace: traced ? [TraceWatcher()] : [])
        _ = try await withTimeout(.seconds(60), "the build") { try await container.start() }
        let ran = ranIn.withLock { $0 }
        #expect(ran.count == 4)
        return ["a", "b", "c"].count { ran[$0] != nil && ran[$0] == ran["root"] }
    }

    @Test("Leaves whose last runs were quick all run in the build's task; unknown ones get child tasks")
    func quickLeavesRunInline() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let graph = try graph(Self.fanOut, ranIn: ranIn)
        // Never ran: as before, only the last leaf to start runs beside the others' child tasks.
        #expect(try await leavesInline(graph, ranIn) == 1)
        record(["a": .microseconds(1), "b": .microseconds(1), "c": .microseconds(1)], in: graph)
        #expect(try await leavesInline(graph, ranIn) == 3)
    }

    @Test("The queue of quick nodes holds at most the budget of expected work")
    func budgetBoundsTheQueue() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let graph = try graph(Self.fanOut, ranIn: ranIn)
        // 8 µs each in a 20 µs budget: two leaves queue inline, the third gets a child task.
        record(["a": .microseconds(8), "b": .microseconds(8), "c": .microseconds(8)], in: graph)
        #expect(try await leavesInline(graph, ranIn) == 2)
        // Over the budget: a slow leaf gets a child task; the two quick ones run inline.
        record(["a": .microseconds(1), "b": .milliseconds(5), "c": .microseconds(1)], in: graph)
        #expect(try await leavesInline(graph, ranIn) == 2)
        #expect(ranIn.withLock { $0["b"] != $0["root"] })
        // A larger budget takes all three.
        record(["a": .microseconds(8), "b": .microseconds(8), "c": .microseconds(8)], in: graph)
        #expect(try await leavesInline(graph, ranIn, policy: BuildPolicy(inlineBudget: .microseconds(30))) == 3)
    }

    @Test("No quick node runs inline with a zero budget, traced, or failing fast")
    func inliningOff() async throws {
        let ranIn = Locked<[String: Int]>([:])
        let graph = try graph(Self.fanOut, ranIn: ranIn)
        let quick: [String: Duration] = ["a": .microseconds(1), "b": .microseconds(1), "c": .microseconds(1)]
        // Zero budget: the last leaf to start still runs inline (the rule that loses nothing).
        record(quick, in: graph)
        #expect(try await leavesInline(graph, ranIn, policy: BuildPolicy(inlineBudget: .zero)) == 1)
        record(quick, in: graph)
        #expect(try await leavesInline(graph, ranIn, traced: true) == 0)
        record(quick, in: graph)
        #expect(try await leavesInline(graph, ranIn, policy: .failFast) == 0)
    }

    @Test("The budget is clamped to 0...1 ms")
    func budgetIsClamped() {
        #expect(BuildPolicy(inlineBudget: .seconds(5)).inlineBudget == BuildPolicy.maximumInlineBudget)
        #expect(BuildPolicy(inlineBudget: .microseconds(-3)).inlineBudget == .zero)
        var policy = BuildPolicy()
        #expect(policy.inlineBudget == .microseconds(20))
        policy.inlineBudget = .seconds(1)
        #expect(policy.inlineBudget == .milliseconds(1))
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
        record(["a": .microseconds(1), "b": .microseconds(1), "c": .microseconds(1)], in: graph)
        // The builder alone (no coordinator), so the test holds its task and reads its report.
        let builder = GraphBuilder(
            graph: graph, generation: 1, attempt: 1, kept: SlotValues(), policy: .default,
            tracer: Tracer(sinks: []), redactor: Redactor())
        let build = Task { await builder.run() }
        try await aStarted.wait(timeout: .seconds(60), "a to start")
        #expect(ranIn.withLock { $0["a"] == $0["root"] }, "a runs in the build's task")
        build.cancel()
        try await cancelled.wait(timeout: .seconds(60), "the build's cancellation to reach a")
        release.open()
        let result = try await withTimeout(.seconds(60), "the cancelled build") { await build.value }

        #expect(log.count(of: "b") == 0 && log.count(of: "c") == 0, "queued nodes never started")
        #expect(result.values == nil, "a cancelled build has no snapshot")
        let outcomes = Dictionary(uniqueKeysWithValues: result.report.nodes.map { ($0.name, $0.outcome) })
        // `a` returned after the cancellation: committed, it keeps `succeeded` (Coordinator rules).
        if case .succeeded = outcomes["a"] {} else { Issue.record("a ended \(String(describing: outcomes["a"]))") }
        for leaf in ["b", "c"] {
            guard case .cancelled(.beforeStart) = outcomes[leaf] else {
                Issue.record("\(leaf) ended \(String(describing: outcomes[leaf])), not cancelled before start")
                continue
            }
        }
    }
}
