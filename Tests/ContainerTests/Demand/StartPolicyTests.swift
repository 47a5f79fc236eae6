import ContainerTesting
import Testing

@testable import Container

@Suite("Start policies: each request builds only its closure (Demand-driven start-up)")
struct StartPolicyTests {
    @Test("start() builds the eager closure only; a lazy service is built by the first request that needs it")
    func eagerThenLazy() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log, start: .eager),
            countedSpec("database", dependsOn: ["configuration"], log: log, start: .lazy),
            countedSpec("search", dependsOn: ["database"], log: log, start: .lazy),
            countedSpec("analytics", log: log, start: .deferred),
        ])
        let launch = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(log.count(of: "configuration") == 1)
        #expect(log.count(of: "database") == 0 && log.count(of: "search") == 0 && log.count(of: "analytics") == 0)
        #expect(launch.serviceNames == ["configuration"])
        #expect(container.status.state == .ready)
        #expect(
            container.status.services == [
                ContainerStatus.Service(name: "configuration", start: .eager, state: .built),
                ContainerStatus.Service(name: "database", start: .lazy, state: .notRequested),
                ContainerStatus.Service(name: "search", start: .lazy, state: .notRequested),
                ContainerStatus.Service(name: "analytics", start: .deferred, state: .notRequested),
            ])
        // Reading what the snapshot does not hold names the service and its policy.
        let error = #expect(throws: AppServices.LookupError.self) { try launch[.made("search")] }
        #expect(error?.code == .notBuilt)
        #expect(error?.message.contains("lazy") == true)

        let search = try await withTimeout(.seconds(30), "service(search)") {
            try await container.service(.made("search"))
        }
        #expect(search.name == "search")
        #expect(log.count(of: "configuration") == 1, "the eager value is reused, not rebuilt")
        #expect(log.count(of: "database") == 1 && log.count(of: "search") == 1)
        #expect(log.count(of: "analytics") == 0)
        #expect(container.status.services.map(\.state) == [.built, .built, .built, .notRequested])
        // The earlier snapshot never changes; the newer one holds more.
        #expect(launch.serviceNames == ["configuration"])
        #expect(container.current?.contains("search") == true)

        let all = try await withTimeout(.seconds(30), "startDeferred()") { try await container.startDeferred() }
        #expect(all.contains("analytics"))
        for name in ["configuration", "database", "search", "analytics"] {
            #expect(log.count(of: name) == 1, "provider of \(name) ran \(log.count(of: name)) times")
        }
    }

    @Test("A snapshot published while its build goes on reports that build so far, not the one before")
    func reportOfAGrowingBuild() async throws {
        let log = OrderLog()
        let gate = Gate()
        let slowStarted = Gate()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log, start: .lazy),
            countedSpec("slow", log: log, start: .lazy) { _ in
                slowStarted.open()
                try await gate.cancellableWait()
            },
            countedSpec("quick", log: log, start: .lazy),
        ])
        let first = try await withTimeout(.seconds(30), "configuration") {
            try await container.start(needs: [ServiceKey<Made>.made("configuration").erased])
        }
        let slow = Task { try await container.start(needs: [ServiceKey<Made>.made("slow").erased]) }
        try await slowStarted.wait(timeout: .seconds(30), "slow to start")
        // Joins the build in flight, which publishes for it while `slow` still runs.
        let quick = try await withTimeout(.seconds(30), "quick") {
            try await container.start(needs: [ServiceKey<Made>.made("quick").erased])
        }
        guard case .succeeded? = quick.report.node("quick")?.outcome else {
            Issue.record("the report of the snapshot that holds quick lacks it: \(quick.report)")
            return
        }
        #expect(quick.report.node("configuration")?.outcome == .reused, "built by the build before")
        #expect(first.report.node("quick") == nil)
        #expect(quick.report.node("slow") == nil, "slow had not settled when the snapshot was published")
        gate.open()
        let done = try await withTimeout(.seconds(30), "slow") { try await slow.value }
        guard case .succeeded? = done.report.node("slow")?.outcome else {
            Issue.record("the final report lacks slow: \(done.report)")
            return
        }
        #expect(quick.report.node("slow") == nil, "a published report stays as it was when published")
        #expect(quick.report.nodes.map(\.name).sorted() == ["configuration", "quick"])
    }

    @Test("Without start policies, a build by closure reports alike mid-build and at its end (no unbuilt node)")
    func reportsOfAPartialBuildAgree() async throws {
        let log = OrderLog()
        let gate = Gate()
        let slowStarted = Gate()
        let container = try ServiceContainer([
            countedSpec("other", log: log),
            countedSpec("slow", log: log) { _ in
                slowStarted.open()
                try await gate.cancellableWait()
            },
            countedSpec("quick", log: log),
        ])
        #expect(!container.graph.declaresStartPolicies)
        let slow = Task { try await container.start(needs: [ServiceKey<Made>.made("slow").erased]) }
        try await slowStarted.wait(timeout: .seconds(30), "slow to start")
        let quick = try await withTimeout(.seconds(30), "quick") {
            try await container.start(needs: [ServiceKey<Made>.made("quick").erased])
        }
        gate.open()
        let done = try await withTimeout(.seconds(30), "slow") { try await slow.value }
        #expect(log.count(of: "other") == 0, "no request needed other")
        #expect(quick.report.nodes.map(\.name) == ["quick"])
        #expect(done.report.nodes.map(\.name) == ["slow", "quick"])
        #expect(done.report.node("other") == nil, "other has no value: it was not reused")
        #expect(!done.contains("other"))
    }

    @Test("A report keeps no value alive: once a reset or a shutdown retires them, they are freed")
    func reportsKeepNoValue() async throws {
        final class Watched: Sendable {}
        for ending in ["reset", "shutdown"] {
            weak var eager: Watched?
            let container = try ServiceContainer([
                ServiceSpec(ServiceKey<Watched>("eager")) { _ in Watched() },
                ServiceSpec(ServiceKey<Watched>("lazy"), start: .lazy) { _ in Watched() },
            ])
            let report: BuildReport
            do {
                let snapshot = try await withTimeout(.seconds(30), "start()") { try await container.start() }
                eager = try snapshot[ServiceKey<Watched>("eager")]
                report = snapshot.report
            }
            #expect(report.node("lazy") == nil, "the lazy service is left out of the report")
            if ending == "reset" {
                _ = try await withTimeout(.seconds(30), "reset()") { try await container.reset() }
            } else {
                _ = try await withTimeout(.seconds(30), "shutdown()") { try await container.shutdown() }
            }
            try await withTimeout(.seconds(60), "the retirements") { await container.published._drainRetirements() }
            #expect(eager == nil, "\(ending): the report (kept here) and the container's last one hold no value")
            withExtendedLifetime(report) {}
        }
    }

    @Test("A failing lazy service fails only the requests whose closure holds it")
    func failureScopedToClosure() async throws {
        let log = OrderLog()
        var broken = ServiceSpec(.made("analytics"), defaultFailure: .permanent) { _ -> Made in
            log.append("analytics")
            throw TestError("the SDK failed")
        }
        broken.start = .lazy
        let container = try ServiceContainer([
            countedSpec("configuration", log: log, start: .eager),
            countedSpec("session", dependsOn: ["configuration"], log: log, start: .lazy),
            broken,
            countedSpec("feed", dependsOn: ["analytics", "session"], log: log, start: .lazy),
        ])
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "feed") {
                try await container.start(needs: [ServiceKey<Made>.made("feed").erased])
            }
        }
        let failed = container.status
        #expect(failed.service("analytics")?.state == .failed)
        #expect(failed.service("feed")?.state == .skipped)
        #expect(failed.service("configuration")?.state == .built)
        let session = try await withTimeout(.seconds(30), "session") { try await container.service(.made("session")) }
        #expect(session.name == "session")
        let ready = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(ready.contains("configuration"))
        #expect(log.count(of: "analytics") == 1)
        #expect(log.count(of: "configuration") == 1 && log.count(of: "session") == 1 && log.count(of: "feed") == 0)
    }

    @Test("start(needs:) with a key the graph lacks is a graph error naming it; nothing is built")
    func unknownKey() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([countedSpec("configuration", log: log, start: .lazy)])
        let error = await #expect(throws: GraphError.self) {
            try await container.start(needs: [ServiceKey<Made>.made("configuratoin").erased])
        }
        #expect(error?.description.contains("configuratoin") == true)
        #expect(log.count(of: "configuration") == 0)
        #expect(container.current == nil)
    }

    @Test("status stays ready while a request builds a lazy service: start() finds what it needs")
    func readyWhileLazyBuilds() async throws {
        let log = OrderLog()
        let gate = Gate()
        let started = Gate()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log),
            countedSpec("search", log: log, start: .lazy) { _ in
                started.open()
                try await gate.wait(timeout: .seconds(30), "the test to open search")
            },
        ])
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        let search = Task { try await container.service(.made("search")) }
        try await started.wait(timeout: .seconds(30), "search to start")
        #expect(container.status.state == .ready)
        #expect(container.status.services.first { $0.name == "search" }?.state == .building)
        gate.open()
        _ = try await withTimeout(.seconds(30), "service(search)") { try await search.value }
        #expect(container.status.state == .ready)
    }
}
