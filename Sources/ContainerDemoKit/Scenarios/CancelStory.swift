import Container
import ContainerTesting

/// Caller cancellation: the build is held at the database by a gate; push's task is cancelled
/// while it waits. Push stops waiting at once; the build goes on and the others get the snapshot.
enum CancelStory {
    static func run(callers generic: Int) async -> ScenarioReport {
        let gate = Gate()
        let stage: StoryStage
        switch StoryStage.make(StoryApp.Lab(databaseGate: gate)) {
        case .success(let made): stage = made
        case .failure(let error): return StoryStage.broken(.cancel, error)
        }
        let container = stage.container
        let callers = stage.callers(generic: generic)
        let victim = "push"
        var narrative = ["1. \(callers.count) callers ask; the build is held at the database by a gate"]
        let tasks = callers.map { caller in
            (caller.name, Task { await CallerRace.attempt(caller, on: container) })
        }
        let everyoneWaits =
            (try? await stage.trace.wait(for: "every caller to join", timeout: .seconds(30)) { events in
                events.joinStates.count == callers.count && events.nodes("node.started").contains("database")
            }) != nil
        var checks = [
            CheckResult(
                "every caller joins while the build is held", everyoneWaits,
                detail: "timed out waiting for \(callers.count) caller.joined events and database's node.started")
        ]
        narrative.append("2. \(victim)'s task is cancelled while it waits")
        tasks.first { $0.0 == victim }?.1.cancel()
        let cancelled = await tasks.first { $0.0 == victim }?.1.value
        let sawCancel =
            (try? await stage.trace.wait(for: "\(victim) to be cancelled", timeout: .seconds(30)) {
                $0.contains { $0.kind == .callerCancelled(caller: victim) }
            }) != nil
        let publishedBeforeOpen = stage.events.count("snapshot.published")
        narrative.append("   " + (cancelled?.line ?? "\(victim) was not among the callers"))

        narrative.append("3. the gate opens; the build goes on")
        gate.open()
        var others: [RaceResult] = []
        for (name, task) in tasks where name != victim { others.append(await task.value) }
        narrative += others.map { "   " + $0.line }

        let events = stage.events
        let cancelledCallers = events.compactMap {
            if case .callerCancelled(let caller) = $0.kind { caller } else { nil }
        }
        let snapshotResumes = events.compactMap { event -> String? in
            if case .callerResumed(let caller, .snapshot) = event.kind { return caller }
            return nil
        }
        var cancelledWithCancellation = false
        if case .failure(let error)? = cancelled?.outcome { cancelledWithCancellation = error is CancellationError }
        checks += [
            CheckResult(
                "\(victim) stops waiting with CancellationError before the build ends",
                cancelledWithCancellation && sawCancel && publishedBeforeOpen == 0,
                detail: "\(victim): \(cancelled?.line ?? "missing"); snapshots published before the gate opened: "
                    + "\(publishedBeforeOpen)"),
            CheckResult(
                "exactly one caller.cancelled, for \(victim)", cancelledCallers == [victim],
                detail: "caller.cancelled: \(cancelledCallers)"),
            CheckResult(
                "the other \(callers.count - 1) callers get the snapshot",
                others.allSatisfy(\.succeeded) && Set(snapshotResumes) == Set(others.map(\.name)),
                detail: "resumed with the snapshot: \(snapshotResumes)"),
            CheckResult(
                "one build, which still publishes",
                events.count("build.started") == 1 && events.count("snapshot.published") == 1,
                detail: "\(events.count("build.started")) builds, \(events.count("snapshot.published")) snapshots"),
        ]
        return stage.report(
            .cancel, title: "caller cancellation: \(victim) gives up while the build is held",
            reports: container.current.map { [$0.report] } ?? [], narrative: narrative, checks: checks)
    }
}
