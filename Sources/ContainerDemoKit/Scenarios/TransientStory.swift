import Container
import ContainerTesting

/// A transient failure: the session's token refresh times out once. Every caller gets the
/// failure, calls again, and the retry rebuilds only the session and what depends on it.
enum TransientStory {
    static func run(callers generic: Int, retries: Int) async -> ScenarioReport {
        let stage: StoryStage
        switch StoryStage.make(StoryApp.Lab(sessionFailures: [.transient]), retries: retries) {
        case .success(let made): stage = made
        case .failure(let error): return StoryStage.broken(.transient, error)
        }
        let callers = stage.callers(generic: generic)
        let results = await CallerRace.run(callers, on: stage.container)
        let events = stage.events
        let first = events.inBuild(1, 1)
        let second = events.inBuild(1, 2)
        let firstFailure = first.compactMap { event -> (FailureKind, [String])? in
            if case .buildFailed(let failure, let roots, _) = event.kind { return (failure, roots) }
            return nil
        }.first
        let kept = ["configuration", "database", "analytics"]
        let rebuilt = Set(second.nodes("node.started"))
        var checks = [
            CheckResult(
                "attempt 1 fails transiently because of session",
                firstFailure.map { $0.0 == .transient && $0.1 == ["session"] } ?? false,
                detail: "build.failed of attempt 1: \(firstFailure.map { "\($0.0) \($0.1)" } ?? "none")"),
            CheckResult(
                "every caller of attempt 1 got the failure",
                first.filter { if case .callerResumed(_, .failure) = $0.kind { true } else { false } }.count
                    == first.joinStates.filter { $0.state == .idle || $0.state == .running }.count,
                detail: "some caller of attempt 1 was not resumed with the failure"),
            CheckResult(
                "one build per attempt: attempt 2 is built once, however many callers retry",
                first.count("build.started") == 1 && second.count("build.started") == 1,
                detail: "attempt 1: \(first.count("build.started")), attempt 2: \(second.count("build.started")) builds"
            ),
            CheckResult(
                "attempt 2 reuses \(kept.joined(separator: ", ")) instead of rebuilding them",
                Set(second.nodes("node.reused")) == Set(kept) && rebuilt.isDisjoint(with: kept),
                detail: "reused \(second.nodes("node.reused")), started \(second.nodes("node.started"))"),
            CheckResult(
                "attempt 2 rebuilds only session and feed", rebuilt == ["session", "feed"],
                detail: "started \(rebuilt.sorted())"),
            CheckResult(
                "attempt 2 publishes the snapshot", second.count("snapshot.published") == 1,
                detail: "no snapshot.published in attempt 2 (with --retries \(retries))"),
            CheckResult(
                "the database migration ran once, never again on the retry", stage.lab.runs(of: "database") == 1,
                detail: "the database provider ran \(stage.lab.runs(of: "database")) times"),
            CheckResult(
                "every caller got the services after retrying", results.allSatisfy(\.succeeded),
                detail: results.filter { !$0.succeeded }.map(\.line).joined(separator: "; ")),
        ]
        if retries == 0 {
            checks.append(
                CheckResult("the story needs --retries of at least 1", false, detail: "--retries 0 was given"))
        }
        return stage.report(
            .transient, title: "transient failure: session's token refresh times out once; callers retry",
            reports: CallerRace.reports(results, published: stage.container.current),
            narrative: results.map(\.line), checks: checks)
    }
}
