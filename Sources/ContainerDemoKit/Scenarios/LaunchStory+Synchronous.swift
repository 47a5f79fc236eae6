import Container
import ContainerTesting
import Plugins

/// The synchronous tier of the launch story (Container's "Launch tiers and the main actor"
/// article): what must exist before `didFinishLaunching` returns, read with `resolveNow` on the
/// main thread, which cannot await.
extension LaunchStory {
    /// The services `didFinishLaunching` reads, in order; `"sync": true` in the config.
    static let synchronousTier = ["notificationDelegate", "backgroundTasks"]
    /// The trace's name of the `resolveNow` callers.
    static let didFinishLaunchingLabel = "didFinishLaunching"

    /// What the simulated `didFinishLaunching` did.
    struct DidFinishLaunching: Sendable {
        /// The services `resolveNow` returned, in order.
        var resolved: [String] = []
        /// Why a `resolveNow` threw, if one did.
        var error: String?
        /// How long the calls took, on the caller's clock.
        var elapsed: Duration = .zero
        /// The reports of the snapshots the calls published, for the story's builds.
        var reports: [BuildReport] = []
    }

    /// The simulated `didFinishLaunching`: a synchronous callback on the main actor (on Linux, the
    /// main queue) that sets up the synchronous tier with `resolveNow` (it cannot await), then
    /// returns. Nothing else is building yet, so the tier is built here, on this thread, and
    /// nothing waits.
    @MainActor
    static func didFinishLaunching(_ container: ServiceContainer) -> DidFinishLaunching {
        var result = DidFinishLaunching()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            for name in synchronousTier {
                let value = try container.resolveNow(ServiceKey<SimulatedValue>(name), as: didFinishLaunchingLabel)
                result.resolved.append(value.node)
                if let report = container.current?.report { result.reports.append(report) }
            }
        } catch {
            result.error = "\(error)"
        }
        result.elapsed = clock.now - start
        return result
    }

    /// The story's line for the synchronous tier.
    static func synchronousNarrative(_ run: Run, graph: ServiceGraph) -> String {
        let done = run.didFinish
        if let error = done.error { return "1. didFinishLaunching: resolveNow failed: \(error)" }
        let built = closure(of: synchronousTier, in: graph).sorted().joined(separator: ", ")
        return "1. didFinishLaunching: \(done.resolved.joined(separator: ", ")) resolved synchronously in "
            + "\(done.elapsed.formattedMilliseconds) before returning (resolveNow on the main actor's thread built "
            + "\(built), each once)"
    }

    /// The synchronous tier's claim: each of its providers ran once, on the `resolveNow` calls,
    /// before they were answered and before launch asked; launch reused the values.
    static func synchronousCheck(_ run: Run, graph: ServiceGraph) -> CheckResult {
        let tier = closure(of: synchronousTier, in: graph)
        let events = run.events
        let starts = events.nodes("node.started")
        let ranOnce = tier.allSatisfy { name in starts.count { $0 == name } == 1 }
        let resumed = events.lastIndex {
            $0.kind.name == "caller.resumed" && $0.kind.caller == didFinishLaunchingLabel
        }
        let launchJoined = events.firstIndex { $0.kind.name == "caller.joined" && $0.kind.caller == "launch" }
        let succeeded = tier.compactMap { name in
            events.firstIndex { $0.kind.name == "node.succeeded" && $0.kind.node == name }
        }
        let inOrder =
            succeeded.count == tier.count && resumed.map { answer in succeeded.allSatisfy { $0 < answer } } == true
            && launchJoined.map { joined in resumed.map { $0 < joined } == true } == true
        // Launch's build reuses the tier: its values are in launch's snapshot, none run again.
        let launchBuild = launchJoined.map { events[$0].build }
        let reusedNodes = Set(
            events.filter { $0.kind.name == "node.reused" && $0.build == launchBuild }.compactMap(\.kind.node))
        let reused = tier.isSubset(of: reusedNodes) && tier.isSubset(of: Set(names(run.launch)))
        let runs = tier.sorted().map { name in "\(name) ×\(starts.count { $0 == name })" }
        return CheckResult(
            "didFinishLaunching builds the synchronous tier with resolveNow before it returns; launch reuses it",
            run.didFinish.error == nil && run.didFinish.resolved == synchronousTier && ranOnce && inOrder && reused,
            detail: "resolved \(run.didFinish.resolved), error \(run.didFinish.error ?? "none"); started \(runs); "
                + "built before the answer and before launch: \(inOrder); reused by launch: \(reused)")
    }
}
