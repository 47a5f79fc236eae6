import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// Node priorities: declared, defaulted from the start policy, raised by the requests waiting
/// for a node; the trace and the report show the priority each node ran at, which is the
/// priority of the task its provider ran in (see ``ServicePriority``).
@Suite("Node priorities (Launch tiers and the main actor)")
struct PriorityTests {
    /// A spec that records the base priority of the task its provider runs in.
    private func spec(
        _ name: String, dependsOn: [String] = [], start: StartPolicy = .eager, priority: ServicePriority? = nil,
        ranAt: Locked<[String: UInt8]>, body: @escaping @Sendable () async throws -> Void = {}
    ) -> ServiceSpec {
        ServiceSpec(ServiceKey<Int>(name), dependsOn: dependsOn, start: start, priority: priority) { _ in
            let base = Task.basePriority?.rawValue ?? 0
            ranAt.withLock { $0[name] = base }
            try await body()
            return 0
        }
    }

    /// The priority each node's `node.started` says it ran at.
    private func traced(_ events: [TraceEvent]) -> [String: ServicePriority] {
        var priorities: [String: ServicePriority] = [:]
        for event in events {
            if case .nodeStarted(let node, _, _, let priority?) = event.kind { priorities[node] = priority }
        }
        return priorities
    }

    @Test("A node runs at its declared priority raised to its caller's; a deferred one at background by default")
    func declaredAndDefaultPriorities() async throws {
        let ranAt = Locked<[String: UInt8]>([:])
        let trace = TraceRecorder()
        let container = try ServiceContainer(
            [
                spec("eager", ranAt: ranAt),
                spec("lowEager", priority: .low, ranAt: ranAt),
                spec("deferred", start: .deferred, ranAt: ranAt),
                spec("urgent", start: .deferred, priority: .high, ranAt: ranAt),
            ], trace: [trace])
        let launch = try await withTimeout(.seconds(60), "start()") {
            try await Task(priority: .medium) { try await container.start() }.value
        }
        let all = try await withTimeout(.seconds(60), "startDeferred()") {
            try await Task(priority: .medium) { try await container.startDeferred() }.value
        }
        let expected: [String: ServicePriority] = [
            // start() waits for both at medium: the low one is raised to it.
            "eager": .medium, "lowEager": .medium,
            // startDeferred() asks at background; `urgent` declares more.
            "deferred": .background, "urgent": .high,
        ]
        #expect(traced(trace.events) == expected)
        #expect(launch.report.node("eager")?.priority == .medium)
        #expect(all.report.node("deferred")?.priority == .background)
        #expect(all.report.node("urgent")?.priority == .high)
        // The trace says what the provider's task ran at.
        let ran = ranAt.withLock { $0 }
        for (name, priority) in expected { #expect(ran[name] == priority.rawValue, "\(name)") }
    }

    @Test("A request waiting for a deferred node raises it above the background its build started at")
    func waitingRequestRaisesTheNodesItNeeds() async throws {
        let ranAt = Locked<[String: UInt8]>([:])
        let trace = TraceWatcher()
        let gate = Gate()
        let container = try ServiceContainer(
            [
                spec("index", start: .deferred, ranAt: ranAt) { try await gate.wait(timeout: .seconds(30)) },
                spec("search", dependsOn: ["index"], start: .deferred, ranAt: ranAt),
                spec("archive", dependsOn: ["index"], start: .deferred, ranAt: ranAt),
            ], trace: [trace])
        let deferred = Task(priority: .medium) { try await container.startDeferred(as: "after first frame") }
        try await trace.wait(for: "index to start", timeout: .seconds(30)) { $0.contains { $0.kind.starts("index") } }
        // The user opens search: a request at high priority now waits for `search`, not for `archive`.
        let search = Task(priority: .high) {
            try await container.start(needs: [ServiceKey<Int>("search").erased], as: "search screen")
        }
        try await trace.wait(for: "the search request to join", timeout: .seconds(30)) {
            $0.contains { $0.kind.caller == "search screen" }
        }
        gate.open()
        _ = try await withTimeout(.seconds(60), "the search request") { try await search.value }
        _ = try await withTimeout(.seconds(60), "startDeferred()") { try await deferred.value }
        #expect(traced(trace.events) == ["index": .background, "search": .high, "archive": .background])
        let ran = ranAt.withLock { $0 }
        #expect(ran["search"] == ServicePriority.high.rawValue)
        #expect(ran["archive"] == ServicePriority.background.rawValue)
    }

    @Test("Main-actor nodes of two priorities take a hop each, each at its own priority, and the trace says so")
    func mainActorBatchPriority() async throws {
        let trace = TraceRecorder()
        let container = try ServiceContainer(
            [
                ServiceSpec(mainActor: ServiceKey<Int>("theme"), priority: .high) { _ in 1 },
                ServiceSpec(mainActor: ServiceKey<Int>("router")) { _ in 2 },
            ], trace: [trace])
        let services = try await withTimeout(.seconds(60), "start()") {
            try await Task(priority: .low) { try await container.start() }.value
        }
        // A hop runs at one priority: `router` is not raised to `theme`'s by sharing its hop,
        // and `theme` never runs below its declared priority in `router`'s.
        let priorities = traced(trace.events)
        #expect(priorities["theme"] == .high)
        #expect(priorities["router"] != nil && priorities["router"] != .high)
        #expect(services.report.node("router")?.priority == priorities["router"])
        #expect(services.report.mainActorBatches == 2)
    }

    @Test("Priority levels: names, task priorities, and the level of any task priority")
    func levels() {
        #expect(ServicePriority.all.map(\.description) == ["high", "medium", "low", "background"])
        #expect(ServicePriority(name: "low") == .low && ServicePriority(name: "urgent") == nil)
        #expect(ServicePriority.high.taskPriority == .high && ServicePriority.low.taskPriority == .utility)
        #expect(ServicePriority(.userInitiated) == .high)
        #expect(ServicePriority(TaskPriority(rawValue: 33)) == .high)
        #expect(ServicePriority(TaskPriority(rawValue: 20)) == .low)
        #expect(ServicePriority(TaskPriority(rawValue: 1)) == .background)
        #expect(ServicePriority.background < .low && ServicePriority.medium < .high)
    }
}
