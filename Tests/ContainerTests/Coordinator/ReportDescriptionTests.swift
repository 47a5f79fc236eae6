import ContainerTesting
import Testing

@testable import Container

/// `configuration <- database <- session <- feed`; `session`'s teardown fails with `teardownError`
/// when one is given. `database` waits on `hold` (after opening `started`) when one is given.
private func chain(
    teardownError: String? = nil, started: Gate? = nil, hold: Gate? = nil, feedVersion: Int = 1,
    withFeed: Bool = true
) throws -> ServiceGraph {
    func spec(_ name: String, _ dependsOn: [String], options: [String: ServiceOptions.Value] = [:]) -> ServiceSpec {
        ServiceSpec(
            .made(name), dependsOn: dependsOn, options: ServiceOptions(options),
            tearDown: { value in
                if value.name == "session", let teardownError { throw TestError(teardownError) }
            }
        ) { context in
            if name == "database", let hold {
                started?.open()
                try await hold.cancellableWait()
            }
            return Made(name: name, generation: context.generation)
        }
    }
    var specs = [spec("configuration", []), spec("database", ["configuration"]), spec("session", ["database"])]
    if withFeed { specs.append(spec("feed", ["session"], options: ["version": .int(feedVersion)])) }
    return try ServiceGraph(specs)
}

@Suite("Reset and reload reports read as what they did")
struct ReportDescriptionTests {
    @Test("A reset says the generations, what was invalidated, carried over and torn down, and the failed teardown")
    func resetDescription() async throws {
        let container = ServiceContainer(graph: try chain(teardownError: "token revocation timed out"))
        _ = try await withTimeout { try await container.start() }
        let report = try await withTimeout { try await container.reset(invalidating: ["session"]) }
        #expect(
            report.description == """
                reset: generation 1 → 2
                  invalidated (built again in generation 2): session, feed
                  carried over (the same values): configuration, database
                  torn down, in order: feed (g1), session (g1)
                  teardown failed: session (g1): token revocation timed out
                """)
        #expect(
            report.debugDescription
                == "ResetReport(reset, generation 1 → 2, invalidated: [session, feed], "
                + "carried over: [configuration, database], torn down: [feed (g1), session (g1) failed: "
                + "token revocation timed out])")
        // In a collection or an optional, Swift prints the debug description: no internals.
        let printed = "\([report])"
        #expect(!printed.contains("SlotNames") && printed.contains("carried over: [configuration, database]"))
        _ = try await container.shutdown()
    }

    @Test("A reset that cancels a running build names it, with the values the build had made torn down")
    func cancelledBuild() async throws {
        let started = Gate()
        let hold = Gate()
        let container = ServiceContainer(graph: try chain(started: started, hold: hold))
        let caller = Task { try await container.start() }
        try await started.wait(timeout: .seconds(60), "the build to reach the database")
        let report = try await withTimeout { try await container.reset() }
        hold.open()
        _ = await caller.result
        #expect(
            report.description == """
                reset: generation 1 → 2
                  invalidated (built again in generation 2): configuration, database, session, feed
                  carried over (the same values): none
                  torn down, in order: configuration (g1)
                  cancelled build: g1 a1
                """)
        #expect(report.debugDescription.hasSuffix(", cancelled build: g1 a1)"))
        _ = try await container.shutdown()
    }

    @Test("A shutdown says the generation it ended and what it tore down")
    func shutdownDescription() async throws {
        let container = ServiceContainer(graph: try chain())
        _ = try await withTimeout { try await container.start() }
        let report = try await withTimeout { try await container.shutdown() }
        #expect(
            report.description == """
                shutdown: generation 1
                  torn down, in order: feed (g1), session (g1), database (g1), configuration (g1)
                """)
        #expect(
            report.debugDescription
                == "ResetReport(shutdown, generation 1 → 1, torn down: [feed (g1), session (g1), database (g1), "
                + "configuration (g1)])")
    }

    @Test("A reload says what was added, removed and changed, rebuilt, carried over and torn down")
    func reloadDescription() async throws {
        let container = ServiceContainer(graph: try chain(teardownError: "flush failed"))
        _ = try await withTimeout { try await container.start() }
        let changed = try await withTimeout { try await container.reload(try chain(feedVersion: 2)) }
        #expect(
            changed.description == """
                reload: generation 1 → 2
                  changed: feed
                  rebuilt (changed, added and their dependents): feed
                  carried over (the same values, not rebuilt, not torn down): configuration, database, session
                  torn down, in order: feed (g1)
                """)
        _ = try await withTimeout { try await container.start() }
        let removed = try await withTimeout { try await container.reload(try chain(feedVersion: 2, withFeed: false)) }
        #expect(
            removed.description == """
                reload: generation 2 → 3
                  removed: feed
                  rebuilt (changed, added and their dependents): none
                  carried over (the same values, not rebuilt, not torn down): configuration, database, session
                  torn down, in order: feed (g2)
                """)
        let same = try await withTimeout { try await container.reload(try chain(feedVersion: 2, withFeed: false)) }
        #expect(same.description.hasPrefix("reload: generation 3 → 4\n  no service changed\n"))
        #expect(
            removed.debugDescription
                == "ReloadReport(generation 2 → 3, added: [], removed: [feed], changed: [], rebuilt: [], "
                + "carried over: [configuration, database, session], torn down: [feed (g2)])")
        let report = try await withTimeout { try await container.shutdown() }
        #expect(report.description.contains("teardown failed: session (g1): flush failed"))
    }

    @Test("Long lists name their first 20 services and count the rest; every failed teardown gets a line")
    func longLists() {
        let names = (1...25).map { "s\($0)" }
        let teardowns = names.prefix(3).map {
            ServiceContainer.ResetReport.Teardown(service: $0, generation: 4, error: "e-\($0)")
        }
        let report = ServiceContainer.ResetReport(
            reason: .reset, from: 4, to: 5, invalidated: ["a"], carriedOver: names,
            tornDown: teardowns + [
                ServiceContainer.ResetReport.Teardown(service: "d", generation: 4, error: nil, scope: "push#n-1")
            ])
        let lines = report.description.split(separator: "\n").map(String.init)
        #expect(
            lines[2] == "  carried over (the same values): " + names.prefix(20).joined(separator: ", ")
                + ", … and 5 more")
        #expect(lines[3] == "  torn down, in order: s1 (g4), s2 (g4), s3 (g4), d in push#n-1 (g4)")
        #expect(
            Array(lines[4...]) == [
                "  teardown failed: s1 (g4): e-s1", "  teardown failed: s2 (g4): e-s2",
                "  teardown failed: s3 (g4): e-s3",
            ])
    }
}
