import Container
import ContainerTesting

/// The main-actor tier of the launch story (Container's "Launch tiers and the main actor"
/// article): the theme, the router and the accounts manager belong to the main actor. On Linux
/// the main actor is the main Dispatch queue: `container-demo`'s async `main` lets it run.
extension LaunchStory {
    /// The launch services declared `"isolation": "main"`.
    static let mainActorTier = ["theme", "router", "accountsManager"]

    /// Where each node ran, by its first `node.started`.
    static func executors(_ events: [TraceEvent]) -> [String: BuildReport.Executor] {
        var executors: [String: BuildReport.Executor] = [:]
        for event in events {
            if case .nodeStarted(let node, _, let executor, _) = event.kind, executors[node] == nil {
                executors[node] = executor
            }
        }
        return executors
    }

    /// The story's line for the main-actor tier: the nodes of launch's build that ran there.
    static func mainActorNarrative(_ run: Run) -> String {
        let joined = run.events.first { $0.kind.name == "caller.joined" && $0.kind.caller == "launch" }
        let onMain = run.events.compactMap { event -> String? in
            guard case .nodeStarted(let node, _, .main, _) = event.kind, event.build == joined?.build else {
                return nil
            }
            return node
        }
        return "   on the main actor (executor main), one after another: "
            + (onMain.isEmpty ? "none" : onMain.joined(separator: ", ")) + "; the other nodes ran on the pool meanwhile"
    }

    /// The main-actor tier's claim: launch runs those services on the main actor, and only
    /// those; besides them, only what didFinishLaunching's `resolveNow` made on the main actor
    /// it was called on (the synchronous tier and its closure) ran there.
    static func mainActorCheck(_ run: Run, graph: ServiceGraph) -> CheckResult {
        let executors = executors(run.events)
        let onMain = Set(executors.filter { $0.value == .main }.keys)
        let declared = Set(mainActorTier.filter { graph.providerID(of: $0) != nil })
        let resolvedNow = closure(of: synchronousTier, in: graph)
        return CheckResult(
            "the theme, the router and the accounts manager run on the main actor, the rest on the pool "
                + "(but the synchronous tier, made by resolveNow on the main actor)",
            declared.count == mainActorTier.count && onMain.subtracting(resolvedNow) == declared,
            detail: "on the main actor: \(onMain.sorted()); declared: \(declared.sorted()); "
                + "resolved now: \(resolvedNow.sorted())")
    }

}
