import Container
import ContainerTesting

/// Logout: the user signs out while the entry points hold generation 1's snapshot.
/// `reset(invalidating: ["session"])` retires the session and what depends on it (torn down
/// in reverse dependency order) and rebuilds only those; the database stays open.
enum LogoutStory {
    static func run(callers generic: Int, retries: Int) async -> ScenarioReport {
        let stage: StoryStage
        switch StoryStage.make(StoryApp.Lab(), retries: retries) {
        case .success(let made): stage = made
        case .failure(let error): return StoryStage.broken(.logout, error)
        }
        let container = stage.container
        let graph = stage.app.graph
        var narrative = ["1. cold start, signed in as alice:"]
        let callers = stage.callers(generic: generic)
        let first = await CallerRace.run(callers, on: container)
        narrative += first.map { "   " + $0.line }
        let held = container.current
        narrative.append("   the entry points hold generation \(held.map { String($0.generation) } ?? "?")'s snapshot")

        narrative.append("2. the user signs out: reset(invalidating: [\"session\"])")
        stage.lab.signOut()
        var reset: ServiceContainer.ResetReport?
        do {
            reset = try await container.reset(invalidating: ["session"])
            if let reset {
                narrative.append(
                    "   generation \(reset.from) → \(reset.to); invalidated \(reset.invalidated), carried over "
                        + "\(reset.carriedOver), torn down in order \(reset.tornDown.map(\.service))")
            }
        } catch {
            narrative.append("   reset failed: \(error)")
        }

        narrative.append("3. the entry points run again:")
        let second = await CallerRace.run(callers, on: container)
        narrative += second.map { "   " + $0.line }
        let heldUser = held.flatMap { try? $0[StoryApp.Keys.session] }?.user
        let newUser = container.current.flatMap { try? $0[StoryApp.Keys.session] }?.user
        narrative.append(
            "4. the old snapshot still says \(heldUser ?? "nobody") (generation \(held.map { String($0.generation) } ?? "?")); "
                + "the new one says \(newUser ?? "signed out") (generation \(container.current.map { String($0.generation) } ?? "?"))"
        )

        let events = stage.events
        let resetEvent = events.compactMap { event -> (Int, Int, [String]?)? in
            if case .generationReset(let change) = event.kind { return (change.from, change.to, change.invalidated) }
            return nil
        }.first
        let tornDown = events.filter { $0.generation == 1 }.nodes("node.tornDown")
        let newBuild = events.inBuild(2, 1)
        let checks = [
            CheckResult(
                "generation 1 publishes for every caller", first.allSatisfy(\.succeeded) && held?.generation == 1,
                detail: first.filter { !$0.succeeded }.map(\.line).joined(separator: "; ")),
            CheckResult(
                "the reset goes from generation 1 to 2 and invalidates session and its dependent feed",
                resetEvent.map { $0.0 == 1 && $0.1 == 2 && Set($0.2 ?? []) == ["session", "feed"] } ?? false,
                detail:
                    "generation.reset: \(resetEvent.map { "\($0.0) → \($0.1), \(String(describing: $0.2))" } ?? "none")"
            ),
            CheckResult(
                "session and feed are torn down, dependents first", tornDown == ["feed", "session"],
                detail: "torn down: \(tornDown)"),
            reverseDependencyOrder(tornDown, graph: graph),
            CheckResult(
                "logout does not reopen the database: it is carried over, not torn down or rebuilt",
                stage.lab.runs(of: "database") == 1 && !tornDown.contains("database")
                    && newBuild.nodes("node.reused").contains("database"),
                detail: "database provider runs: \(stage.lab.runs(of: "database")); torn down: \(tornDown)"),
            CheckResult(
                "generation 2 rebuilds only session and feed",
                Set(newBuild.nodes("node.started")) == ["session", "feed"]
                    && Set(newBuild.nodes("node.reused")) == ["configuration", "database", "analytics"],
                detail: "started \(newBuild.nodes("node.started")), reused \(newBuild.nodes("node.reused"))"),
            CheckResult(
                "generation 2 publishes a signed-out snapshot",
                container.current?.generation == 2 && newUser == nil && second.allSatisfy(\.succeeded),
                detail:
                    "current: generation \(container.current.map { String($0.generation) } ?? "none"), user \(newUser ?? "nil")"
            ),
            CheckResult(
                "the snapshot held from generation 1 is unchanged", held?.generation == 1 && heldUser == "alice",
                detail: "held: generation \(held.map { String($0.generation) } ?? "none"), user \(heldUser ?? "nil")"),
        ]
        return stage.report(
            .logout, title: "logout: reset(invalidating: [\"session\"]) while the entry points hold generation 1",
            reports: CallerRace.reports(first, published: held) + (container.current.map { [$0.report] } ?? []),
            narrative: narrative, checks: checks)
    }

    /// No value is torn down after one of its dependencies (reverse dependency order: "Teardown" in
    /// Container's CoordinatorRules article).
    static func reverseDependencyOrder(_ order: [String], graph: ServiceGraph) -> CheckResult {
        var problems: [String] = []
        for (index, earlier) in order.enumerated() {
            for later in order[(index + 1)...] where dependsTransitively(later, on: earlier, graph: graph) {
                problems.append("\(earlier) was torn down before its dependent \(later)")
            }
        }
        return CheckResult(
            "teardown runs in reverse dependency order", problems.isEmpty, detail: problems.joined(separator: "; "))
    }

    static func dependsTransitively(_ name: String, on other: String, graph: ServiceGraph) -> Bool {
        var stack = graph.dependencies(of: name) ?? []
        var seen = Set<String>()
        while let next = stack.popLast() {
            if next == other { return true }
            if seen.insert(next).inserted { stack += graph.dependencies(of: next) ?? [] }
        }
        return false
    }
}
