import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// A scope instance's build fetches the app values its requests need: one fetch, then another
/// for a request that came while the first was in flight. When the second fails, nodes the
/// first unblocked may still run: the failure fails only the requests that need the app value.
@Suite("A scope instance's build that cannot fetch an app value while its nodes run")
struct ScopeFetchFailureTests {
    private static let base = ServiceKey<Int>("base")
    private static let broken = ServiceKey<Int>("broken")
    private static let waiting = ServiceKey<Int>("waiting")
    private static let quick = ServiceKey<Int>("quick")
    private static let late = ServiceKey<Int>("late")

    /// Reads `waiting` and `quick` (their app value: `base`).
    private struct FirstEntry: EntryPoint {
        let id = "first"
        let scope: String? = "s"
        var requirements: [AnyServiceKey] {
            [ScopeFetchFailureTests.waiting.erased, ScopeFetchFailureTests.quick.erased]
        }
        func run(_ services: ScopedServices) async throws {}
    }

    /// Reads `late` (its app value: `broken`, fetched second).
    private struct SecondEntry: EntryPoint {
        let id = "second"
        let scope: String? = "s"
        var requirements: [AnyServiceKey] { [ScopeFetchFailureTests.late.erased] }
        func run(_ services: ScopedServices) async throws {}
    }

    private struct AppFailure: Error {}

    @Test("the request that needs the failed app value fails with the app's error; the other gets its snapshot")
    func secondFetchFailsWhileANodeRuns() async throws {
        let baseGate = Gate()
        let brokenGate = Gate()
        let waitingGate = Gate()
        let started = Gate()
        let inFlight = Atomic<Int>(0)
        let runs = Counter()
        let ended = Counter()
        let violations = OrderLog()
        let watcher = TraceWatcher()
        let specs = [
            ServiceSpec(Self.base) { _ in
                await baseGate.wait()
                return 1
            },
            ServiceSpec(Self.broken) { _ -> Int in
                await brokenGate.wait()
                throw AppFailure()
            },
            ServiceSpec(
                Self.quick, dependsOn: ["base"], lifetime: .scope("s"),
                tearDown: { _ in
                    if inFlight.load(ordering: .acquiring) > 0 {
                        violations.append("quick torn down while waiting runs")
                    }
                }
            ) { context in try context[Self.base] + 1 },
            ServiceSpec(Self.waiting, dependsOn: ["base"], lifetime: .scope("s")) { context in
                inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing)
                _ = runs.increment()
                defer {
                    inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing)
                    _ = ended.increment()
                }
                _ = try context[Self.base]
                started.open()
                await waitingGate.wait()
                return 0
            },
            ServiceSpec(Self.late, dependsOn: ["broken"], lifetime: .scope("s"), start: .lazy) { context in
                try context[Self.broken] + 1
            },
        ]
        let container = ServiceContainer(graph: try ServiceGraph(specs, scopes: ["s"]), trace: [watcher])
        let instance = try container.openScope("s", id: "i")
        defer { waitingGate.open() }

        let first = Task { try await instance.run(FirstEntry()) }
        // The first fetch is in flight: the app's build of `base` waits at its gate.
        try await watcher.wait(for: "base to start") {
            $0.contains { $0.kind.name == "node.started" && $0.kind.node == "base" }
        }
        let second = Task { try await instance.run(SecondEntry()) }
        // The second request joined the instance's build: `broken` is fetched once `base` arrived.
        try await watcher.wait(for: "late to join the build") { events in
            events.contains { if case .buildAdded(let nodes, _) = $0.kind { nodes.contains("late") } else { false } }
        }
        baseGate.open()
        try await started.wait(timeout: .seconds(60), "waiting to start")
        try await watcher.wait(for: "broken to start") {
            $0.contains { $0.kind.name == "node.started" && $0.kind.node == "broken" }
        }
        brokenGate.open()
        try await watcher.wait(for: "broken to fail in the app") {
            $0.contains { $0.scope == nil && $0.kind.name == "node.failed" && $0.kind.node == "broken" }
        }
        waitingGate.open()

        // The first request needs only base: it gets its snapshot. The second needs broken: it
        // gets the app's failure, once the build settled late (skipped).
        let firstResult = try await withTimeout(.seconds(60), "the first request") { await first.result }
        let secondResult = try await withTimeout(.seconds(60), "the second request") { await second.result }
        #expect(throws: Never.self) { try firstResult.get() }
        let error = #expect(throws: ContainerError.self) { try secondResult.get() }
        #expect(error?.message.contains("AppFailure") == true, "\(error?.message ?? "")")

        _ = try await withTimeout(.seconds(60), "the close") { try await instance.close() }
        #expect(runs.count == 1 && ended.count == 1, "waiting ran once, to its end")
        #expect(violations.entries.isEmpty, "\(violations.entries)")
        let events = watcher.events.filter { $0.scope == "s#i" }
        #expect(events.contains { $0.kind.name == "node.succeeded" && $0.kind.node == "waiting" })
        #expect(
            events.contains {
                if case .nodeSkipped("late", let because) = $0.kind { because == ["broken"] } else { false }
            })
        #expect(events.count("build.failed") == 1)
        #expect(events.count("build.cancelled") == 0)
        try await container.shutdown()
    }
}
