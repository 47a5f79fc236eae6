import ContainerTesting
import Testing

@testable import Container

extension ServiceKey where Value == Made {
    fileprivate static let telemetry = ServiceKey("telemetry")
    fileprivate static let feed = ServiceKey("feed")
}

/// Reads an optional service through `@Needs` with an optional property.
private struct FeedScreen: EntryPoint {
    let id = "feedScreen"
    @Needs(.feed) var feed: Made
    @Needs(.telemetry) var telemetry: Made?
    func run(_ services: ScopedServices) async throws -> String {
        "\(feed.name) with \(telemetry?.name ?? "no telemetry")"
    }
}

@Suite("Optional services: their failure never fails a request (Demand-driven start-up)")
struct OptionalServiceTests {
    @Test(
        "a failing optional service: start() succeeds without it, its dependent runs and reads nil, the snapshot says why"
    )
    func failingOptionalService() async throws {
        let log = OrderLog()
        let readTelemetry = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log),
            optional(
                countedSpec("telemetry", dependsOn: ["configuration"], log: log, defaultFailure: .permanent) { _ in
                    throw TestError("the SDK refused the key")
                }),
            countedSpec("feed", dependsOn: ["configuration", "telemetry?"], log: log) { context in
                let telemetry = try context.optional(ServiceKey<Made>.made("telemetry"))
                readTelemetry.append(telemetry == nil ? "nil" : "value")
                // A read that requires the value names the optional remedy.
                let error = #expect(throws: AppServices.LookupError.self) {
                    try context[ServiceKey<Made>.made("telemetry")]
                }
                #expect(error?.message.contains("optional(_:)") == true)
            },
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["configuration", "feed"])
        #expect(try services.optional(ServiceKey<Made>.made("telemetry")) == nil)
        #expect(try services.optional(ServiceKey<Made>.made("feed"))?.name == "feed")
        #expect(services.absence(of: "telemetry")?.contains("the SDK refused the key") == true)
        let error = #expect(throws: AppServices.LookupError.self) { try services[ServiceKey<Made>.made("telemetry")] }
        #expect(error?.code == .notBuilt)
        #expect(error?.message.contains("the SDK refused the key") == true)
        #expect(readTelemetry.entries == ["nil"])
        #expect(log.count(of: "configuration") == 1 && log.count(of: "telemetry") == 1 && log.count(of: "feed") == 1)
        #expect(container.status.state == .ready)
        #expect(container.status.service("telemetry")?.state == .failed)

        // Every later start() answers at once: the permanent failure is not retried.
        let again = try await withTimeout(.seconds(30), "start() again") { try await container.start() }
        #expect(again.serviceNames == ["configuration", "feed"])
        #expect(log.count(of: "telemetry") == 1)
    }

    @Test(
        "a build that fails with an optional service failing too: the error marks the optional failure as failing no one"
    )
    func optionalFailureInAFailedBuild() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            optional(
                countedSpec("telemetry", log: log, defaultFailure: .transient) { _ in throw TestError("no network") }),
            countedSpec("session", log: log, defaultFailure: .transient) { _ in throw TestError("offline") },
        ])
        let error = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "start()") { try await container.start() }
        }
        #expect(error?.code == .buildFailed)
        #expect(error?.message.contains("'telemetry' (optional: fails no request): no network") == true)
        #expect(error?.message.contains("'session': offline") == true)
        #expect(container.status.lastFailure?.message.contains("(optional: fails no request)") == true)
        // start() tries only what it requires again; the optional service waits for a request naming it.
        _ = await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "start() again") { try await container.start() }
        }
        #expect(log.count(of: "session") == 2 && log.count(of: "telemetry") == 1)
    }

    @Test("a failure of what only an optional service needs skips it and nothing else; its dependents run")
    func failureUnderAnOptionalService() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            // Lazy: only the crash reporter needs it (an eager one would be required by start() itself).
            countedSpec("keychain", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                throw TestError("locked")
            },
            optional(countedSpec("crashReporter", dependsOn: ["keychain"], log: log)),
            countedSpec("database", log: log),
            countedSpec("session", dependsOn: ["database", "crashReporter?"], log: log),
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["database", "session"])
        #expect(services.absence(of: "crashReporter")?.contains("keychain") == true)
        #expect(log.count(of: "keychain") == 1 && log.count(of: "crashReporter") == 0)
        #expect(log.count(of: "database") == 1 && log.count(of: "session") == 1)
        let report = services.report
        #expect(report.outcome(of: "crashReporter") == .skipped(because: ["keychain"]))
        #expect(report.outcome(of: "session")?.hasValue == true)
        // A request that needs the keychain itself fails, with its own failure.
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "keychain") {
                try await container.start(needs: [ServiceKey<Made>.made("keychain").erased])
            }
        }
        #expect(log.count(of: "keychain") == 1, "a permanent failure is not retried")
    }

    @Test("a build whose only failure is an optional service's leaves no last failure in the status")
    func optionalFailureIsNoLastFailure() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log),
            optional(
                countedSpec("telemetry", log: log, defaultFailure: .permanent) { _ in throw TestError("no SDK key") }),
        ])
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        let status = container.status
        #expect(status.state == .ready)
        #expect(status.lastBuild?.failedNodes == ["telemetry"])
        #expect(status.lastFailure == nil, "\(status.lastFailure?.message ?? "")")
        // Even a request naming it gets a snapshot, which says why it is absent.
        let named = try await withTimeout(.seconds(30), "telemetry") {
            try await container.start(needs: [ServiceKey<Made>.telemetry.erased])
        }
        #expect(named.absence(of: "telemetry")?.contains("no SDK key") == true)
        #expect(log.count(of: "telemetry") == 1, "a permanent failure is not tried again")
        #expect(container.status.lastFailure == nil)
    }

    @Test("a failure only an optional service needs fails no request: the build writes no build.failed, one span")
    func failureOnlyAnOptionalServiceNeedsIsNoBuildFailure() async throws {
        let log = OrderLog()
        let recorder = TraceRecorder()
        let container = try ServiceContainer(
            [
                countedSpec("x", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("x failed")
                },
                optional(countedSpec("telemetry", dependsOn: ["x"], log: log)),
                countedSpec("feed", log: log),
            ], trace: [recorder])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["feed"])
        let names = recorder.events.map(\.kind.name)
        #expect(names.contains("snapshot.published") && names.contains("node.failed"))
        #expect(!names.contains("build.failed"), "\(names)")
        // A request that needs x itself fails, and its build says so, last.
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "x") {
                try await container.start(needs: [ServiceKey<Made>.made("x").erased])
            }
        }
        #expect(log.count(of: "x") == 1)
    }

    @Test("a build that publishes for one request and fails another ends with build.failed, after its snapshot")
    func publishedAndFailedBuildEndsWithItsFailure() async throws {
        let log = OrderLog()
        let recorder = TraceWatcher()
        let gate = Gate()
        let container = try ServiceContainer(
            [
                countedSpec("feed", log: log) { _ in await gate.wait() },
                countedSpec("broken", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                    throw TestError("broken")
                },
            ], trace: [recorder])
        let both = Task { try await container.start(needs: [ServiceKey<Made>.made("broken").erased]) }
        let feed = Task { try await container.start(needs: [ServiceKey<Made>.made("feed").erased]) }
        try await recorder.wait(for: "broken to fail") { $0.contains { $0.kind.name == "node.failed" } }
        try await recorder.wait(for: "both callers to join") {
            $0.filter { $0.kind.name == "caller.joined" }.count == 2
        }
        gate.open()
        _ = try await withTimeout(.seconds(30), "feed") { try await feed.value }
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "broken") { try await both.value }
        }
        // The events that end a build: build.failed is the last of them, once.
        let ends = recorder.events.filter { event in
            event.build == BuildAttempt(generation: 1, attempt: 1)
                && ["snapshot.published", "build.failed", "build.cancelled"].contains(event.kind.name)
        }
        #expect(ends.map(\.kind.name) == ["snapshot.published", "build.failed"])
    }

    @Test("an optional service that succeeds is held, and its dependent reads it")
    func succeedingOptionalService() async throws {
        let log = OrderLog()
        let read = OrderLog()
        let container = try ServiceContainer([
            optional(countedSpec("telemetry", log: log)),
            countedSpec("feed", dependsOn: ["telemetry?"], log: log) { context in
                read.append(try context.optional(ServiceKey<Made>.made("telemetry"))?.name ?? "nil")
            },
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["telemetry", "feed"])
        #expect(try services.optional(ServiceKey<Made>.made("telemetry"))?.name == "telemetry")
        #expect(services.absence(of: "telemetry") == nil)
        #expect(read.entries == ["telemetry"])
    }

    @Test("a transient optional failure is tried again by the next request that names it")
    func transientOptionalFailureIsRetriedOnRequest() async throws {
        let log = OrderLog()
        let attempts = OrderLog()
        let container = try ServiceContainer(
            [
                countedSpec("configuration", log: log),
                optional(
                    countedSpec("flags", dependsOn: ["configuration"], log: log, defaultFailure: .transient) { _ in
                        attempts.append("flags")
                        if attempts.count(of: "flags") == 1 { throw TestError("offline") }
                    }),
            ], policy: BuildPolicy(retryAfter: .none))
        let first = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(first.serviceNames == ["configuration"])
        #expect(first.absence(of: "flags")?.contains("offline") == true)
        let second = try await withTimeout(.seconds(30), "start(needs: flags)") {
            try await container.start(needs: [ServiceKey<Made>.made("flags").erased])
        }
        #expect(second.serviceNames == ["configuration", "flags"])
        #expect(second.absence(of: "flags") == nil)
        #expect(log.count(of: "flags") == 2 && log.count(of: "configuration") == 1)
    }

    @Test(
        "a plain edge to an optional service, and an optional edge to one that is not, are graph errors with the remedy"
    )
    func edgesAreChecked() throws {
        let log = OrderLog()
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([
                optional(countedSpec("telemetry", log: log)),
                countedSpec("database", log: log),
                countedSpec("feed", dependsOn: ["telemetry", "database?"], log: log),
            ])
        }
        let issues = error?.issues ?? []
        #expect(issues.map(\.code) == [.optionalEdge, .optionalEdge])
        #expect(issues.first?.message.contains("depend on it as \"telemetry?\"") == true)
        #expect(issues.last?.message.contains("'database' is not optional") == true)
    }

    @Test(
        "@Needs with an optional property: declared with the service's own type, nil when it failed, the value when built"
    )
    func needsOptionalProperty() async throws {
        #expect(FeedScreen().requirements == [ServiceKey.feed.erased, ServiceKey.telemetry.erased])
        let log = OrderLog()
        let failing = try ServiceContainer(
            graph: ServiceGraph(
                [
                    optional(countedSpec("telemetry", log: log) { _ in throw TestError("blocked by the user") }),
                    countedSpec("feed", log: log),
                ], requirements: [.init(FeedScreen())]))
        let degraded = try await withTimeout(.seconds(30), "run") { try await failing.run(FeedScreen()) }
        #expect(degraded == "feed with no telemetry")
        let working = try ServiceContainer([
            optional(countedSpec("telemetry", log: log)), countedSpec("feed", log: log),
        ])
        let full = try await withTimeout(.seconds(30), "run") { try await working.run(FeedScreen()) }
        #expect(full == "feed with telemetry")
        #expect(log.count(of: "telemetry") == 2 && log.count(of: "feed") == 2)
    }
}
