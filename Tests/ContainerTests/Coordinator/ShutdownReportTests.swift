import ContainerTesting
import TestSupport
import Testing

@testable import Container

/// `a` <- `b` <- `c`; `b`'s teardown fails with `message`, the others succeed. `a` waits on `hold`
/// when one is given.
private func failingTeardownGraph(
    message: String, log: OrderLog, started: Gate? = nil, hold: Gate? = nil
) throws -> ServiceGraph {
    func spec(_ name: String, _ dependsOn: [String]) -> ServiceSpec {
        ServiceSpec(
            .made(name), dependsOn: dependsOn,
            tearDown: { value in
                log.append(value.name)
                if value.name == "b" { throw TestError(message) }
            }
        ) { context in
            if name == "a", let hold {
                started?.open()
                await hold.wait()
            }
            return Made(name: name, generation: context.generation)
        }
    }
    return try ServiceGraph([spec("a", []), spec("b", ["a"]), spec("c", ["b"])])
}

@Suite("Graceful shutdown reports teardown failures (ShutdownAndStatus)")
struct ShutdownReportTests {
    @Test("A teardown error during shutdown(deadline:) is in its report; the other values are still torn down")
    func teardownErrorIsReported() async throws {
        let log = OrderLog()
        let trace = TraceWatcher()
        let container = ServiceContainer(
            graph: try failingTeardownGraph(message: "disk unplugged", log: log), trace: [trace])
        _ = try await container.start()
        let report = try await withTimeout { try await container.shutdown(deadline: .now + .seconds(3_600)) }
        #expect(report.reason == .shutdown)
        #expect(report.tornDown.map(\.service) == ["c", "b", "a"], "dependents first, each once")
        #expect(report.failures.map(\.service) == ["b"])
        #expect(report.failures.first?.error?.contains("disk unplugged") == true)
        #expect(report.failures.first?.generation == 1)
        #expect(report.tornDown.filter { $0.service != "b" }.allSatisfy { $0.error == nil })
        #expect(log.entries == ["c", "b", "a"], "a failed teardown does not stop the others")
        #expect(
            trace.events.contains {
                if case .nodeTornDown("b", let error?) = $0.kind { return error.contains("disk unplugged") }
                return false
            })
    }

    @Test("A teardown error of a build that finished during the drain is in the shutdown's report")
    func teardownErrorOfADrainedBuildIsReported() async throws {
        let log = OrderLog()
        let started = Gate()
        let hold = Gate()
        let container = ServiceContainer(
            graph: try failingTeardownGraph(message: "flush failed", log: log, started: started, hold: hold))
        let caller = Task { try await container.start() }
        try await started.wait(timeout: .seconds(60), "the build to start")
        let shutdown = Task { try await container.shutdown(deadline: .now + .seconds(3_600)) }
        try await withTimeout {
            while container.status.state != .shuttingDown { await Task.yield() }
        }
        hold.open()
        #expect(try await withTimeout { try await caller.value }.generation == 1, "the build finished in time")
        let report = try await withTimeout { try await shutdown.value }
        #expect(report.cancelledBuild == nil)
        #expect(report.tornDown.map(\.service) == ["c", "b", "a"])
        #expect(report.failures.map(\.service) == ["b"])
        #expect(report.failures.first?.error?.contains("flush failed") == true)
        #expect(log.entries == ["c", "b", "a"], "each value torn down once")
    }
}
