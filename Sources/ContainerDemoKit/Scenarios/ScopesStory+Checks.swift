import Container
import ContainerTesting
import Plugins

extension ScopesStory {
    /// The story's claims, checked on its trace and its instances.
    static func checks(_ run: Run) -> [CheckResult] {
        let events = run.events
        let labels = arrivals.map(\.label)
        let app = events.indices.filter { events[$0].scope == nil }
        let appPublished = app.first { events[$0].kind.name == "snapshot.published" }
        // Where each instance's build joined the app build (the app event naming it as the caller).
        let joined = labels.map { label in
            app.first { if case .callerJoined(label, _, _) = events[$0].kind { true } else { false } }
        }
        let resumed = labels.map { label in
            app.contains {
                events[$0].kind == .callerResumed(caller: label, result: .snapshot) && events[$0].generation == 1
            }
        }
        let firstScopedStart = labels.map { label in
            events.firstIndex { $0.scope == label && $0.kind.name == "node.started" }
        }
        let gen1Builds = events.filter { $0.scope == nil && $0.generation == 1 }.count("build.started")
        let databaseOpened = events.filter { $0.scope == nil }.nodes("node.started").filter { $0 == "database" }.count
        let retired = Set(run.reset?.invalidated ?? [])
        let expected = arrivals.filter { !uses($0.scope, config: run.config).isDisjoint(with: retired) }.map(\.label)
        let states = zip(run.instances.map(\.label), zip(run.held, run.rebuiltOn))
        return [
            CheckResult(
                "the windows and the push arrive with the cold start: each instance's build gets its app services "
                    + "from generation 1's one app build (joins it, or finds its snapshot)",
                appPublished != nil && zip(joined, resumed).allSatisfy { $0 != nil && $1 },
                detail: "caller.joined on the app: \(found(events)); resumed with its snapshot: \(resumed)"),
            CheckResult(
                "the app graph is built once for the windows, the push and the app's entry points", gen1Builds == 1,
                detail: "\(gen1Builds) app builds in generation 1"),
            CheckResult(
                "sceneRouter and pushDetail are built only after the app snapshot is published",
                appPublished.map { published in firstScopedStart.allSatisfy { $0.map { $0 > published } ?? false } }
                    ?? false,
                detail: "first node.started of \(labels) at \(firstScopedStart.map { $0.map(String.init) ?? "none" })"),
            CheckResult(
                "each window gets a router of its own; the push loads item A-17",
                valuesHold(run), detail: "values: \(values(run))"),
            CheckResult(
                "every window and the push get their services, before and after logout",
                (run.first + run.second).allSatisfy(\.succeeded),
                detail: (run.first + run.second).filter { !$0.succeeded }.map(\.line).joined(separator: "; ")),
            CheckResult(
                "logout supersedes exactly the instances whose scope uses \(retired.sorted().joined(separator: ", "))",
                run.reset != nil && run.superseded == expected,
                detail: "expected \(expected), superseded \(run.superseded)"),
            CheckResult(
                "the superseded instances rebuild on app generation 2; the others keep their snapshot",
                states.allSatisfy { label, state in
                    state.1 == (run.superseded.contains(label) ? 2 : state.0?.appGeneration)
                },
                detail: states.map { "\($0.0): built on app generation \($0.1.1.map(String.init) ?? "none")" }
                    .joined(separator: ", ")),
            CheckResult(
                "logout does not reopen the database: it carries over", databaseOpened == 1,
                detail: "the database was opened \(databaseOpened) times"),
        ]
    }

    /// Each instance's own value, as it was before logout.
    private static func values(_ run: Run) -> [String] {
        zip(arrivals, run.held).map { arrival, snapshot in
            guard let snapshot else { return "\(arrival.label): no snapshot" }
            if arrival.scope == "push" {
                return (try? snapshot.resolve(.pushDetail)).map { "\($0)" } ?? "\(arrival.label): no pushDetail"
            }
            return (try? snapshot.resolve(.sceneRouter)).map { "\($0)" } ?? "\(arrival.label): no sceneRouter"
        }
    }

    private static func valuesHold(_ run: Run) -> Bool {
        zip(arrivals, run.held).allSatisfy { arrival, snapshot in
            guard let snapshot else { return false }
            if arrival.scope == "push" { return (try? snapshot.resolve(.pushDetail))?.itemID == "A-17" }
            return (try? snapshot.resolve(.sceneRouter))?.windowID == arrival.id
        }
    }
}
