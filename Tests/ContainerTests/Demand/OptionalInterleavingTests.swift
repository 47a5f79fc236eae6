import ContainerTesting
import Testing

@testable import Container

private func key(_ name: String) -> AnyServiceKey { ServiceKey<Made>.made(name).erased }

private func failedNode(_ name: String) -> @Sendable ([TraceEvent]) -> Bool {
    { events in events.contains { $0.kind.name == "node.failed" && $0.kind.node == name } }
}

private func joined(_ count: Int) -> @Sendable ([TraceEvent]) -> Bool {
    { events in events.count { $0.kind.name == "caller.joined" } == count }
}

@Suite("Optional services under interleavings: late joiners, fail-fast, budgets, resets, scopes, traces")
struct OptionalInterleavingTests {
    // MARK: Interleavings that once went wrong

    /// `x` fails (permanently); `n` needs it, `b` needs `n`, `g` waits for `gate`; the optional
    /// `o` needs `n`; with `dependent`, `d` reads `o` through an optional edge. All lazy.
    private func doomedUnderOptional(
        log: OrderLog, gate: Gate, trace: TraceWatcher, dependent: Bool
    ) throws -> ServiceContainer {
        var specs = [
            countedSpec("x", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("x down") },
            countedSpec("n", dependsOn: ["x"], log: log, start: .lazy),
            countedSpec("b", dependsOn: ["n"], log: log, start: .lazy),
            countedSpec("g", log: log, start: .lazy) { _ in try await gate.wait(timeout: .seconds(30), "g") },
            optional(countedSpec("o", dependsOn: ["n"], log: log, start: .lazy)),
        ]
        if dependent { specs.append(countedSpec("d", dependsOn: ["o?"], log: log, start: .lazy)) }
        return try ServiceContainer(specs, trace: [trace])
    }

    @Test("a request joining after a plain dependency of its optional service failed (two levels down)")
    func lateJoinerBehindDoomedNode() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try doomedUnderOptional(log: log, gate: gate, trace: trace, dependent: true)
        let first = Task { try await container.start(needs: [key("b"), key("g")]) }
        try await trace.wait(for: "x to fail", timeout: .seconds(30), until: failedNode("x"))
        let second = Task { try await container.start(needs: [key("d")]) }
        try await trace.wait(for: "the second request to join", timeout: .seconds(30), until: joined(2))
        gate.open()
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "first") { try await first.value }
        }
        let result = try await withTimeout(.seconds(30), "second") { await second.result }
        switch result {
        case .success(let services):
            #expect(services.contains("d"))
            #expect(services.absence(of: "o") != nil, "the snapshot says why o is absent")
        case .failure(let error):
            Issue.record("d needs o only through an optional edge, yet the request failed: \(error)")
        }
        #expect(log.count(of: "d") == 1, "d ran \(log.count(of: "d")) times")
    }

    @Test("a request for an optional service behind a doomed node: answered, with a reason")
    func lateJoinerOptionalRootBehindDoomedNode() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try doomedUnderOptional(log: log, gate: gate, trace: trace, dependent: false)
        let first = Task { try await container.start(needs: [key("b"), key("g")]) }
        try await trace.wait(for: "x to fail", timeout: .seconds(30), until: failedNode("x"))
        let second = Task { try await container.start(needs: [key("o")]) }
        try await trace.wait(for: "the second request to join", timeout: .seconds(30), until: joined(2))
        gate.open()
        _ = await first.result
        let services = try await withTimeout(.seconds(30), "second") { try await second.value }
        #expect(!services.contains("o"))
        #expect(services.absence(of: "o") != nil, "absence(of:) says why o is absent")
    }

    @Test("fail-fast, a failure of what only an optional service needs must not cancel the build")
    func failFastUnderOptional() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                countedSpec("keychain", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                    throw TestError("locked")
                },
                optional(countedSpec("crashReporter", dependsOn: ["keychain"], log: log)),
                countedSpec("database", log: log) { _ in await gate.wait() },
                countedSpec("session", dependsOn: ["database"], log: log),
            ], policy: .failFast, trace: [trace])
        let start = Task { try await container.start() }
        try await trace.wait(for: "keychain to fail", timeout: .seconds(30), until: failedNode("keychain"))
        gate.open()
        let result = try await withTimeout(.seconds(30), "start()") { await start.result }
        switch result {
        case .success(let services):
            #expect(services.contains("session"))
            #expect(services.absence(of: "crashReporter") != nil)
        case .failure(let error):
            Issue.record("start() failed although only an optional service needs the keychain: \(error)")
        }
    }

    @Test("fail-fast, the optional service itself failing does not cancel the build")
    func failFastOptionalItself() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                optional(countedSpec("telemetry", log: log, defaultFailure: .permanent) { _ in throw TestError("no") }),
                countedSpec("database", log: log) { _ in await gate.wait() },
                countedSpec("session", dependsOn: ["database", "telemetry?"], log: log),
            ], policy: .failFast, trace: [trace])
        let start = Task { try await container.start() }
        try await trace.wait(for: "telemetry to fail", timeout: .seconds(30), until: failedNode("telemetry"))
        gate.open()
        let services = try await withTimeout(.seconds(30), "start()") { try await start.value }
        #expect(services.serviceNames == ["database", "session"])
        #expect(log.count(of: "session") == 1)
    }

    @Test("a traced start() after an optional failure answers at once, as an untraced one does")
    func tracedStartDoesNotRetry() async throws {
        for traced in [false, true] {
            let log = OrderLog()
            let container = try ServiceContainer(
                [
                    countedSpec("configuration", log: log),
                    optional(countedSpec("flags", log: log) { _ in throw TestError("offline") }),
                ], trace: traced ? [TraceWatcher()] : [])
            _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
            #expect(container.status.state == .ready)
            _ = try await withTimeout(.seconds(30), "start() again") { try await container.start() }
            #expect(
                log.count(of: "flags") == 1,
                "traced: \(traced): a start() that finds the eager services built tries nothing; flags ran \(log.count(of: "flags")) times"
            )
        }
    }

    // MARK: Scopes

    @Test("a scoped service depending on a failing optional app service runs without it")
    func scopedServiceOnFailingOptionalAppService() async throws {
        for lazyApp in [false, true] {
            let log = OrderLog()
            var router = countedSpec("router", dependsOn: ["base", "appTelemetry?"], log: log)
            router.lifetime = .scope("scene")
            let container = ServiceContainer(
                graph: try ServiceGraph(
                    [
                        countedSpec("base", log: log, start: lazyApp ? .lazy : .eager),
                        optional(
                            countedSpec("appTelemetry", log: log, defaultFailure: .permanent) { _ in
                                throw TestError("sdk down")
                            }),
                        router,
                    ], scopes: ["scene"]))
            let scene = try container.openScope("scene", id: "w1")
            let result = try await withTimeout(.seconds(30), "scene.start()") {
                await resultOf { try await scene.start() }
            }
            switch result {
            case .success(let services):
                #expect(services.contains("router"), "lazyApp \(lazyApp)")
            case .failure(let error):
                Issue.record("lazyApp \(lazyApp): the scope failed: \(error)")
            }
            // A second start of the instance.
            let again = try await withTimeout(.seconds(30), "scene.start() again") {
                await resultOf { try await scene.start() }
            }
            if case .failure(let error) = again { Issue.record("lazyApp \(lazyApp): again: \(error)") }
            #expect(log.count(of: "router") <= 1)
        }
    }

    @Test("a scoped service depending on an optional app service that succeeds reads it")
    func scopedServiceOnSucceedingOptionalAppService() async throws {
        let log = OrderLog()
        let read = OrderLog()
        var router = countedSpec("router", dependsOn: ["base", "appTelemetry?"], log: log) { context in
            read.append(try context.optional(ServiceKey<Made>.made("appTelemetry")) == nil ? "nil" : "value")
        }
        router.lifetime = .scope("scene")
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [countedSpec("base", log: log), optional(countedSpec("appTelemetry", log: log)), router],
                scopes: ["scene"]))
        let scene = try container.openScope("scene", id: "w1")
        let services = try await withTimeout(.seconds(30), "scene.start()") { try await scene.start() }
        #expect(services.contains("router"))
        #expect(read.entries == ["value"])
    }

    @Test("an optional scoped service failing: the instance starts without it")
    func optionalScopedServiceFails() async throws {
        let log = OrderLog()
        var badge = optional(countedSpec("badge", dependsOn: ["base"], log: log) { _ in throw TestError("no badge") })
        badge.lifetime = .scope("scene")
        var router = countedSpec("router", dependsOn: ["base", "badge?"], log: log)
        router.lifetime = .scope("scene")
        let container = ServiceContainer(
            graph: try ServiceGraph([countedSpec("base", log: log), badge, router], scopes: ["scene"]))
        let scene = try container.openScope("scene", id: "w1")
        let services = try await withTimeout(.seconds(30), "scene.start()") { try await scene.start() }
        #expect(services.contains("router") && !services.contains("badge"))
        #expect(services.absence(of: "badge")?.contains("no badge") == true)
    }

    @Test("a second failed attempt of an optional service: the snapshot says the newest reason and report")
    func absenceReasonIsFresh() async throws {
        let log = OrderLog()
        let attempts = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log),
            optional(
                countedSpec("flags", log: log, start: .lazy) { _ in
                    attempts.append("f")
                    throw TestError("offline \(attempts.count(of: "f"))")
                }),
        ])
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        let first = try await withTimeout(.seconds(30), "flags 1") { try await container.start(needs: [key("flags")]) }
        #expect(first.absence(of: "flags")?.contains("offline 1") == true)
        let second = try await withTimeout(.seconds(30), "flags 2") { try await container.start(needs: [key("flags")]) }
        #expect(log.count(of: "flags") == 2)
        #expect(second.absence(of: "flags")?.contains("offline 2") == true, "\(second.absence(of: "flags") ?? "nil")")
        #expect(
            second.report.attempt == 3,
            "the snapshot's report is of the build that answered it: \(second.report.attempt)")
    }

    @Test("reload while an optional service is absent: the new generation tries it")
    func reloadWhileAbsent() async throws {
        let log = OrderLog()
        let attempts = OrderLog()
        @Sendable func graph(_ version: Int) throws -> ServiceGraph {
            try ServiceGraph([
                optional(
                    countedSpec("telemetry", log: log, defaultFailure: .permanent) { _ in
                        attempts.append("t")
                        if attempts.count(of: "t") == 1 { throw TestError("first") }
                    }),
                countedSpec("feed", dependsOn: ["telemetry?"], log: log),
                countedSpec("v\(version)", log: log),
            ])
        }
        let container = ServiceContainer(graph: try graph(1))
        let first = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(!first.contains("telemetry"))
        _ = try await withTimeout(.seconds(30), "reload") { try await container.reload(try graph(2)) }
        let second = try await withTimeout(.seconds(30), "start() after reload") { try await container.start() }
        #expect(second.contains("telemetry") && second.absence(of: "telemetry") == nil)
    }

    @Test("reset while the optional service runs; the next start() builds it once")
    func resetWhileOptionalRuns() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                optional(
                    countedSpec("telemetry", log: log) { context in
                        if context.generation == 1 { await gate.wait() }
                    }),
                countedSpec("feed", dependsOn: ["telemetry?"], log: log),
            ], trace: [trace])
        let first = Task { try await container.start() }
        try await trace.wait(for: "telemetry to start", timeout: .seconds(30)) {
            $0.contains { $0.kind.name == "node.started" && $0.kind.node == "telemetry" }
        }
        let reset = Task { try await container.reset() }
        try await trace.wait(for: "the reset", timeout: .seconds(30)) {
            $0.contains { $0.kind.name == "generation.reset" }
        }
        gate.open()
        _ = try await withTimeout(.seconds(30), "reset") { try await reset.value }
        await #expect(throws: ContainerError.self) {
            try await withTimeout(.seconds(30), "first") { try await first.value }
        }
        let second = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(second.serviceNames == ["telemetry", "feed"])
        #expect(log.count(of: "feed") == 1)
    }

    @Test("an optional group dependency whose only members are optional and fail")
    func groupAllOptionalFail() async throws {
        let log = OrderLog()
        var a = optional(countedSpec("sinkA", log: log) { _ in throw TestError("a") })
        a.group = "sinks"
        var b = optional(countedSpec("sinkB", log: log) { _ in throw TestError("b") })
        b.group = "sinks"
        let got = OrderLog()
        let container = try ServiceContainer([
            a, b,
            countedSpec("tracker", dependsOn: ["group:sinks"], log: log) { context in
                got.append("\(try context.group(ServiceGroup<Made>("sinks")).count)")
            },
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["tracker"])
        #expect(got.entries == ["0"])
    }

    // MARK: Everything else with optional services

    @Test("an optional node fails while other requests join the build; each provider once")
    func joinersWhileOptionalFails() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                optional(
                    countedSpec("o", log: log, defaultFailure: .permanent, start: .lazy) { _ in
                        try await gate.wait(timeout: .seconds(30), "o")
                        throw TestError("o failed")
                    }),
                countedSpec("d", dependsOn: ["o?"], log: log, start: .lazy),
                countedSpec("e", dependsOn: ["o?", "d"], log: log, start: .lazy),
                countedSpec("a", log: log, start: .lazy),
            ], trace: [trace])
        let requests: [[String]] = [["d"], ["e"], ["o"], ["a", "d"], ["d"]]
        var tasks: [Task<AppServices, any Error>] = []
        for (index, names) in requests.enumerated() {
            tasks.append(Task { try await container.start(needs: names.map(key)) })
            try await trace.wait(for: "request \(index + 1)", timeout: .seconds(30), until: joined(index + 1))
        }
        gate.open()
        for (task, names) in zip(tasks, requests) {
            let services = try await withTimeout(.seconds(30), "\(names)") { try await task.value }
            #expect(!services.contains("o") && services.absence(of: "o") != nil)
            for name in names where name != "o" { #expect(services.contains(name)) }
        }
        for name in ["o", "d", "e"] { #expect(log.count(of: name) == 1, "\(name): \(log.count(of: name))") }
        #expect(trace.count("build.started") == 1)
    }

    @Test("a request arriving after the optional node settled absent in the build in flight")
    func arrivesAfterAbsentSettled() async throws {
        let log = OrderLog()
        let gate = Gate()
        let trace = TraceWatcher()
        let container = try ServiceContainer(
            [
                optional(
                    countedSpec("o", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("o") }),
                countedSpec("g", log: log, start: .lazy) { _ in try await gate.wait(timeout: .seconds(30), "g") },
                countedSpec("d", dependsOn: ["o?"], log: log, start: .lazy),
                countedSpec("e", dependsOn: ["o?", "g"], log: log, start: .lazy),
            ], trace: [trace])
        let first = Task { try await container.start(needs: [key("g")]) }
        try await trace.wait(for: "g to start", timeout: .seconds(30)) {
            $0.contains { $0.kind.name == "node.started" && $0.kind.node == "g" }
        }
        let firstO = Task { try await container.start(needs: [key("o")]) }
        try await trace.wait(for: "o to fail", timeout: .seconds(30), until: failedNode("o"))
        _ = try await withTimeout(.seconds(30), "o's request") { try await firstO.value }
        let second = Task { try await container.start(needs: [key("d")]) }
        let third = Task { try await container.start(needs: [key("e")]) }
        // d starts at once (o settled): the second request is answered before g opens.
        let d = try await withTimeout(.seconds(30), "d") { try await second.value }
        #expect(d.contains("d") && d.absence(of: "o") != nil)
        try await trace.wait(for: "four joined", timeout: .seconds(30), until: joined(4))
        gate.open()
        _ = try await withTimeout(.seconds(30), "first") { try await first.value }
        let e = try await withTimeout(.seconds(30), "e") { try await third.value }
        #expect(e.contains("e"))
        for name in ["o", "d", "e", "g"] { #expect(log.count(of: name) == 1, "\(name)") }
        #expect(trace.count("build.started") == 1)
    }

    @Test("an optional service depending on another optional one; both fail in turn")
    func optionalOnOptional() async throws {
        let log = OrderLog()
        let read = OrderLog()
        let container = try ServiceContainer([
            optional(countedSpec("o1", log: log, defaultFailure: .permanent) { _ in throw TestError("o1") }),
            optional(
                countedSpec("o2", dependsOn: ["o1?"], log: log) { context in
                    read.append(try context.optional(ServiceKey<Made>.made("o1")) == nil ? "nil" : "o1")
                }),
            countedSpec("d", dependsOn: ["o2?"], log: log),
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["o2", "d"])
        #expect(read.entries == ["nil"])
        #expect(services.absence(of: "o1") != nil && services.absence(of: "o2") == nil)
    }

    @Test("a chain: a non-optional under an optional under an optional fails; dependents run")
    func deepChain() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("k", log: log, defaultFailure: .permanent, start: .lazy) { _ in throw TestError("k") },
            countedSpec("m", dependsOn: ["k"], log: log, start: .lazy),
            optional(countedSpec("o1", dependsOn: ["m"], log: log)),
            optional(countedSpec("o2", dependsOn: ["o1?"], log: log)),
            optional(countedSpec("o3", dependsOn: ["m"], log: log)),
            countedSpec("d", dependsOn: ["o2?", "o3?"], log: log),
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.serviceNames == ["o2", "d"])
        #expect(services.absence(of: "o1") != nil && services.absence(of: "o3") != nil)
        #expect(log.count(of: "m") == 0 && log.count(of: "o1") == 0 && log.count(of: "d") == 1)
    }

    @Test("a group with an optional member: the dependent gets the others")
    func groupWithOptionalMember() async throws {
        let log = OrderLog()
        var a = countedSpec("sinkA", log: log)
        a.group = "sinks"
        var b = optional(countedSpec("sinkB", log: log) { _ in throw TestError("b") })
        b.group = "sinks"
        var c = countedSpec("sinkC", log: log)
        c.group = "sinks"
        let got = OrderLog()
        let container = try ServiceContainer([
            a, b, c,
            countedSpec("tracker", dependsOn: ["group:sinks"], log: log) { context in
                for sink in try context.group(ServiceGroup<Made>("sinks")) { got.append(sink.name) }
            },
        ])
        let services = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(services.contains("tracker"))
        #expect(got.entries == ["sinkA", "sinkC"])
    }

    @Test("maxAttempts: an optional service that keeps failing never fails a request, and stops being tried")
    func maxAttemptsOptional() async throws {
        let log = OrderLog()
        let container = try ServiceContainer(
            [
                countedSpec("configuration", log: log),
                optional(countedSpec("flags", log: log, start: .lazy) { _ in throw TestError("offline") }),
                countedSpec("feed", dependsOn: ["configuration", "flags?"], log: log, start: .lazy),
            ], policy: BuildPolicy(maxAttempts: 2))
        for round in 0..<4 {
            let services = try await withTimeout(.seconds(30), "round \(round)") {
                try await container.start(needs: [key("flags")])
            }
            #expect(!services.contains("flags"))
        }
        #expect(log.count(of: "flags") == 2)
        let feed = try await withTimeout(.seconds(30), "feed") { try await container.start(needs: [key("feed")]) }
        #expect(feed.contains("feed"))
        let start = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(start.contains("configuration"))
        #expect(container.status.state == .ready)
    }

    @Test("reset(invalidating:) of an absent optional service tries it at once; its dependent sees it")
    func resetRetries() async throws {
        let log = OrderLog()
        let attempts = OrderLog()
        let read = OrderLog()
        let container = try ServiceContainer([
            optional(
                countedSpec("telemetry", log: log, defaultFailure: .permanent) { _ in
                    attempts.append("t")
                    if attempts.count(of: "t") == 1 { throw TestError("first") }
                }),
            countedSpec("feed", dependsOn: ["telemetry?"], log: log) { context in
                read.append(try context.optional(ServiceKey<Made>.made("telemetry")) == nil ? "nil" : "value")
            },
        ])
        let first = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        #expect(first.serviceNames == ["feed"])
        _ = try await withTimeout(.seconds(30), "reset") { try await container.reset(invalidating: ["telemetry"]) }
        let second = try await withTimeout(.seconds(30), "start() after reset") { try await container.start() }
        #expect(second.serviceNames == ["telemetry", "feed"])
        #expect(second.absence(of: "telemetry") == nil)
        #expect(read.entries == ["nil", "value"])
    }

    @Test("a deferred optional service failing: startDeferred() succeeds")
    func deferredOptional() async throws {
        let log = OrderLog()
        let container = try ServiceContainer([
            countedSpec("configuration", log: log),
            optional(
                countedSpec("analytics", log: log, defaultFailure: .permanent, start: .deferred) { _ in
                    throw TestError("a")
                }),
            countedSpec("report", dependsOn: ["analytics?"], log: log, start: .deferred),
        ])
        _ = try await withTimeout(.seconds(30), "start()") { try await container.start() }
        let all = try await withTimeout(.seconds(30), "startDeferred()") { try await container.startDeferred() }
        #expect(all.contains("report") && !all.contains("analytics"))
        let again = try await withTimeout(.seconds(30), "startDeferred() again") { try await container.startDeferred() }
        #expect(again.contains("report"))
        #expect(log.count(of: "analytics") == 1)
    }
}

/// `try await body()` as a result.
private func resultOf(_ body: () async throws -> AppServices) async -> Result<AppServices, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
