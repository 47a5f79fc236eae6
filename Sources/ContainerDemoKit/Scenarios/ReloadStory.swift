import Container
import ContainerTesting

/// The reload story (the Reloading a graph article): `Configs/reload/v1.json` starts; version 2 of the file
/// changes the session's timeout, drops the `cache` database and adds `remoteConfig`. The
/// reload rebuilds exactly session, what depends on it (feed) and remoteConfig; it closes the
/// cache; the configuration and the database carry over (the database is not reopened).
enum ReloadStory {
    /// The pair the story reloads, relative to the current directory (the repository's root).
    static let paths = (old: "Configs/reload/v1.json", new: "Configs/reload/v2.json")

    /// The claims of the story about the pair's difference.
    static func checks(_ outcome: ReloadRun.Outcome) -> [CheckResult] {
        let reload = outcome.reload
        let events = outcome.events
        let databaseRuns = events.filter { $0.scope == nil }.nodes("node.started").filter { $0 == "database" }.count
        let end = events.firstIndex { $0.kind == .containerShutdown && $0.scope == nil } ?? events.count
        let split = outcome.resetIndex ?? end
        let tornByReload = split < end ? Array(events[split..<end]).nodes("node.tornDown") : []
        let fromFile = (added: ["remoteConfig"], removed: ["cache"], changed: ["session"])
        return [
            CheckResult(
                "generation 1 publishes before the reload", outcome.publishedBefore?.generation == 1,
                detail: "published before: \(outcome.publishedBefore.map { "generation \($0.generation)" } ?? "none")"),
            CheckResult(
                "the reload finds what version 2 changes: remoteConfig added, cache removed, session changed "
                    + "(its timeout)",
                reload.added == fromFile.added && reload.removed == fromFile.removed
                    && reload.changed == fromFile.changed,
                detail: "added \(reload.added), removed \(reload.removed), changed \(reload.changed)"),
            CheckResult(
                "it rebuilds exactly session, its dependent feed and the new remoteConfig",
                Set(reload.rebuilt) == ["session", "feed", "remoteConfig"],
                detail: "rebuilt \(reload.rebuilt)"),
            CheckResult(
                "configuration and the database carry over: the database is opened once, never reopened",
                Set(reload.carriedOver) == ["configuration", "database"] && databaseRuns == 1,
                detail: "carried over \(reload.carriedOver); database opened \(databaseRuns) times"),
            CheckResult(
                "the removed cache is closed (torn down) once, by the reload",
                tornByReload == ["cache"] && reload.tornDown.map(\.service) == ["cache"],
                detail: "torn down by the reload: trace \(tornByReload), report \(reload.tornDown.map(\.service))"),
            CheckResult(
                "generation 2 publishes, and every entry point gets it",
                outcome.publishedAfter?.generation == 2 && outcome.after.allSatisfy(\.succeeded),
                detail: "published after: \(outcome.publishedAfter.map { "generation \($0.generation)" } ?? "none"); "
                    + outcome.after.filter { !$0.succeeded }.map(\.line).joined(separator: "; ")),
        ]
    }
}
