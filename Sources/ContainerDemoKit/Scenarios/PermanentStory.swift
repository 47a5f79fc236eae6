import Container
import ContainerTesting

/// A permanent failure: the database file is corrupt. The failure is sticky (the next call
/// fails at once, with no build) until the app repairs the file and calls `reset()`.
enum PermanentStory {
    static func run(callers generic: Int, retries: Int) async -> ScenarioReport {
        let stage: StoryStage
        switch StoryStage.make(StoryApp.Lab(databaseCorrupt: true), retries: retries) {
        case .success(let made): stage = made
        case .failure(let error): return StoryStage.broken(.permanent, error)
        }
        let container = stage.container
        var narrative: [String] = ["1. cold start; the database file is corrupt:"]
        let callers = stage.callers(generic: generic)
        let first = await CallerRace.run(callers, on: container)
        narrative += first.map { "   " + $0.line }

        narrative.append("2. the user taps Retry; start() fails at once, without a build:")
        let buildsBefore = stage.events.count("build.started")
        let again = await CallerRace.attempt(.generic("retry-button"), on: container)
        let eventsAfterRetry = stage.events
        narrative.append("   " + again.line)

        narrative.append("3. the app deletes the corrupt file and calls reset():")
        stage.lab.repairDatabase()
        var resetLine = "   reset() "
        do {
            let reset = try await container.reset()
            let torn = reset.tornDown.map(\.service)
            resetLine +=
                "→ generation \(reset.to); "
                + (torn.isEmpty ? "nothing left to tear down" : "torn down: \(torn.joined(separator: ", "))")
        } catch {
            resetLine += "failed: \(error)"
        }
        narrative.append(resetLine)

        narrative.append("4. the entry points ask again and get generation 2:")
        let second = await CallerRace.run(callers, on: container)
        narrative += second.map { "   " + $0.line }

        let events = stage.events
        let firstBuild = events.inBuild(1, 1)
        let failure = firstBuild.compactMap { event -> FailureKind? in
            if case .buildFailed(let failure, _, _) = event.kind { return failure }
            return nil
        }.first
        let retryJoin = eventsAfterRetry.joinStates.last { $0.caller == "retry-button" }
        // Values the failed generation built are torn down (at once: Coordinator rules, 4), before generation 2 builds.
        let secondBuild = events.firstIndex { $0.generation == 2 && $0.kind == .buildStarted } ?? events.count
        let tornEarly = events[..<secondBuild].filter { $0.generation == 1 }.nodes("node.tornDown")
        let checks = [
            CheckResult(
                "generation 1 fails permanently", failure == .permanent,
                detail: "build.failed: \(String(describing: failure))"),
            CheckResult(
                "every caller of generation 1 got the failure", first.allSatisfy { !$0.succeeded },
                detail: first.filter(\.succeeded).map(\.name).joined(separator: ", ") + " got services"),
            CheckResult(
                "the next start() finds the container failed and fails at once",
                retryJoin?.state == .failed && !again.succeeded,
                detail: "retry-button found \(retryJoin?.state.rawValue ?? "nothing")"),
            CheckResult(
                "the failed state starts no build", eventsAfterRetry.count("build.started") == buildsBefore,
                detail: "\(eventsAfterRetry.count("build.started") - buildsBefore) builds started by the retry"),
            CheckResult(
                "what generation 1 built (configuration, analytics) was torn down before generation 2 builds",
                Set(tornEarly) == ["configuration", "analytics"],
                detail: "torn down: \(tornEarly)"),
            CheckResult(
                "reset() starts generation 2, which publishes",
                container.current?.generation == 2
                    && events.inBuild(2, 1).count("snapshot.published") == 1,
                detail: "current generation: \(container.current.map { String($0.generation) } ?? "none")"),
            CheckResult(
                "every caller of generation 2 got the services", second.allSatisfy(\.succeeded),
                detail: second.filter { !$0.succeeded }.map(\.line).joined(separator: "; ")),
        ]
        return stage.report(
            .permanent, title: "permanent failure: the database file is corrupt; sticky until reset()",
            reports: CallerRace.reports(first + [again] + second, published: container.current),
            narrative: narrative, checks: checks)
    }
}
