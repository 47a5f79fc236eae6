import Container
import ContainerTesting

/// One random case of the randomized checker: a graph, per-run outcomes, and the operations
/// a driver performs on a container built from it. Made from a seed only, so a failing case
/// replays with `CHECKER_SEED=<seed>`.
struct CheckerPlan: CustomStringConvertible {
    /// What one provider run of a node does.
    enum Step: String {
        case ok, transient, permanent
        /// Waits, cancellably, until the build is cancelled (a reset, shutdown or fail-fast).
        case hang
        /// Ignores its timeout (a non-cancellable gate), then throws a permanent error.
        case lateError
    }

    struct Node {
        let name: String
        let dependencies: [Int]
        /// One step per provider run within a generation; the last repeats.
        let steps: [Step]
        /// The provider waits on the node's (cancellable) gate before its step.
        let gated: Bool
        let teardownFails: Bool
        /// The teardown waits on the node's teardown gate (opened by ``Operation/openTeardowns``),
        /// so teardown jobs end at moments of their own.
        var teardownGated = false
        /// Lives in scope `s` instead of the app (or, with ``nested``, in `t`).
        var scoped = false
        /// Lives in scope `t`, nested in `s` (its instances open from those of `s`).
        var nested = false
        /// 0 for the app, 1 for `s`, 2 for `t`.
        var level: Int { nested ? 2 : scoped ? 1 : 0 }
        /// Set for nodes with a `lateError` step: the timeout they ignore.
        var hasTimeout: Bool { steps.contains(.lateError) }
    }

    /// What the driver does, in order.
    enum Operation: CustomStringConvertible {
        /// Callers that call `start()`; `cancel` says whether and when each is cancelled.
        case callers(Int, cancel: CancelMode)
        /// A caller whose task is already cancelled when it calls `start()`.
        case cancelledCaller
        /// Opens the gates of these nodes.
        case openGates([Int])
        /// Opens every late-error gate.
        case openLateGates
        /// `reset(invalidating:)` in its own task (`nil`: everything).
        case reset([Int]?)
        /// Waits until every caller started so far has its answer (opens every gate first).
        case settle
        /// Opens scope instance `i<n>` of scope `s` (when it is not open).
        case open(Int)
        /// Callers of scope instance `i<n>` (when it is open).
        case scopeCallers(Int, count: Int, cancel: CancelMode)
        /// Closes scope instance `i<n>` in its own task (when it is open).
        case close(Int)
        /// Opens instance `j<n>` of the nested scope `t` from instance `i<parent>` (opening that
        /// one first when needed).
        case openNested(parent: Int, Int)
        /// Callers of nested instance `j<n>` of `i<parent>` (opening both first when needed).
        case nestedCallers(parent: Int, Int, count: Int, cancel: CancelMode)
        /// Closes nested instance `j<n>` of `i<parent>` in its own task (when it is open).
        case closeNested(parent: Int, Int)
        /// Shuts the container down in its own task, then waits until it took effect: every
        /// later call must be refused.
        case shutdown(Shutdown)
        /// Reloads to a new version of the graph in its own task (see ``Reload``).
        case reload(Reload)
        /// Opens every teardown gate.
        case openTeardowns

        var description: String {
            switch self {
            case .callers(let count, let cancel): "callers(\(count), \(cancel))"
            case .cancelledCaller: "cancelledCaller"
            case .openGates(let nodes): "openGates(\(nodes))"
            case .openLateGates: "openLateGates"
            case .reset(let nodes): "reset(\(nodes.map { "\($0)" } ?? "all"))"
            case .settle: "settle"
            case .open(let instance): "open(i\(instance))"
            case .scopeCallers(let instance, let count, let cancel): "scopeCallers(i\(instance), \(count), \(cancel))"
            case .close(let instance): "close(i\(instance))"
            case .openNested(let parent, let instance): "open(i\(parent)/j\(instance))"
            case .nestedCallers(let parent, let instance, let count, let cancel):
                "nestedCallers(i\(parent)/j\(instance), \(count), \(cancel))"
            case .closeNested(let parent, let instance): "close(i\(parent)/j\(instance))"
            case .shutdown(let shutdown): "shutdown(\(shutdown))"
            case .reload(let reload): "reload(\(reload))"
            case .openTeardowns: "openTeardowns"
            }
        }
    }

    /// How a mid-case shutdown goes.
    struct Shutdown: CustomStringConvertible {
        /// `nil`: `shutdown()`; otherwise `shutdown(deadline: .now + deadlineMs ms)`.
        let deadlineMs: Int?
        /// Opens every (cancellable) gate first, so a graceful shutdown's build may finish in time.
        let opensGates: Bool
        /// Waits until the shutdown returned (opening the late gates first); otherwise only until
        /// the trace shows it took effect (traced cases: an untraced case always waits).
        let awaitsReturn: Bool
        /// Another shutdown is called at the same moment: it must be refused, and lose nothing.
        var concurrent = false

        var description: String {
            (deadlineMs.map { "deadline \($0) ms" } ?? "immediate") + (opensGates ? ", gates open" : "")
                + (awaitsReturn ? ", awaited" : "") + (concurrent ? ", concurrent" : "")
        }
    }

    /// A new version of the graph: the same nodes, with node `changed` (if any) given new options
    /// (it and its dependents rebuild; a scoped one changes the scope, whose instances rebuild),
    /// and the scope and its services removed (`withScope` false: its instances close) or back.
    struct Reload: CustomStringConvertible {
        let changed: Int?
        let withScope: Bool

        var description: String { "\(changed.map { "n\($0)" } ?? "none") changed\(withScope ? "" : ", no scope")" }
    }

    enum CancelMode: String {
        case none
        /// Cancelled right after its task is created: before or after it registers.
        case immediately
        /// Cancelled once the trace shows it joined (traced cases only).
        case afterJoining
    }

    let seed: UInt64
    let nodes: [Node]
    let failFast: Bool
    let traced: Bool
    let operations: [Operation]
    /// Whether any node lives in scope `s`.
    var hasScope: Bool { nodes.contains { $0.scoped } }
    /// Whether any node lives in scope `t`, nested in `s`.
    var hasNested: Bool { nodes.contains { $0.nested } }

    /// The coordinator whose build `report` is, for a caller of `instance` (`nil`: the app): the
    /// level of its nodes says which of the caller's chain it is (`app`, `s#i0`, `s#i0/t#j1`).
    func owner(of report: BuildReport, askedOf instance: String?) -> String {
        let level = report.nodes.first.flatMap { node in nodes.first { $0.name == node.name }?.level } ?? 0
        guard let instance, level > 0 else { return "app" }
        // A nested instance's label is its parent's, `/`, then its own.
        let chain = instance.split(separator: "/", maxSplits: 1).map(String.init)
        return level == 1 ? chain[0] : instance
    }

    /// The scopes of the graph (none, `s`, or `s` and `t` nested in it).
    func scopes(withScope: Bool = true) -> [ServiceGraph.Scope] {
        guard withScope && hasScope else { return [] }
        return hasNested ? ["s", .init("t", parent: "s")] : ["s"]
    }

    init(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        self.seed = seed
        let count = Int.random(in: 1...7, using: &random)
        var nodes: [Node] = []
        for index in 0..<count {
            let dependencies = (0..<index).filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
            let stepCount = Int.random(in: 1...3, using: &random)
            let steps = (0..<stepCount).map { _ -> Step in
                switch Int.random(in: 0..<20, using: &random) {
                case 0..<12: .ok
                case 12..<15: .transient
                case 15..<17: .permanent
                case 17..<19: .hang
                default: .lateError
                }
            }
            nodes.append(
                Node(
                    name: "n\(index)", dependencies: dependencies, steps: steps,
                    gated: Bool.random(using: &random), teardownFails: Int.random(in: 0..<4, using: &random) == 0,
                    teardownGated: Int.random(in: 0..<4, using: &random) == 0))
        }
        // Scoped nodes are a suffix: an app node never depends on a scoped one (no captive edge).
        if count >= 2 && Int.random(in: 0..<3, using: &random) == 0 {
            let first = Int.random(in: 1..<count, using: &random)
            for index in first..<count { nodes[index].scoped = true }
            // Half of those cases nest a scope `t` in `s`: again a suffix, so nothing of `s` reads it.
            if count - first >= 2 && Bool.random(using: &random) {
                let nested = Int.random(in: (first + 1)..<count, using: &random)
                for index in nested..<count { nodes[index].nested = true }
            }
        }
        self.nodes = nodes
        failFast = Int.random(in: 0..<5, using: &random) == 0
        traced = Int.random(in: 0..<4, using: &random) != 0
        var operations: [Operation] = []
        for _ in 0..<Int.random(in: 2...9, using: &random) {
            operations.append(Self.randomOperation(nodes: nodes, traced: traced, using: &random))
        }
        // A third of the cases shut down mid-case, sometimes twice; more calls always follow.
        if Int.random(in: 0..<3, using: &random) == 0 {
            var at = Int.random(in: 0...operations.count, using: &random)
            for _ in 0..<(Int.random(in: 0..<8, using: &random) == 0 ? 2 : 1) {
                let shutdown = Shutdown(
                    deadlineMs: Bool.random(using: &random) ? nil : [0, 1, 5].randomElement(using: &random),
                    opensGates: Bool.random(using: &random), awaitsReturn: !traced || Bool.random(using: &random),
                    concurrent: Int.random(in: 0..<4, using: &random) == 0)
                operations.insert(.shutdown(shutdown), at: at)
                at = Int.random(in: (at + 1)...operations.count, using: &random)
            }
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                operations.append(Self.randomOperation(nodes: nodes, traced: traced, using: &random))
            }
        }
        self.operations = operations
    }

    /// One random operation other than a shutdown.
    private static func randomOperation(nodes: [Node], traced: Bool, using random: inout SplitMix64) -> Operation {
        let modes: [CancelMode] = traced ? [.none, .none, .immediately, .afterJoining] : [.none, .immediately]
        if nodes.contains(where: { $0.nested }) && Int.random(in: 0..<2, using: &random) == 0 {
            let parent = Int.random(in: 0..<2, using: &random)
            let instance = Int.random(in: 0..<2, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1: return .openNested(parent: parent, instance)
            case 2, 3:
                return .nestedCallers(
                    parent: parent, instance, count: Int.random(in: 1...3, using: &random),
                    cancel: modes.randomElement(using: &random)!)
            default: return .closeNested(parent: parent, instance)
            }
        }
        if nodes.contains(where: { $0.scoped }) && Int.random(in: 0..<2, using: &random) == 0 {
            let instance = Int.random(in: 0..<2, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1: return .open(instance)
            case 2, 3:
                return .scopeCallers(
                    instance, count: Int.random(in: 1...3, using: &random),
                    cancel: modes.randomElement(using: &random)!)
            default: return .close(instance)
            }
        }
        switch Int.random(in: 0..<15, using: &random) {
        case 12, 13:
            let changed = Bool.random(using: &random) ? Int.random(in: 0..<nodes.count, using: &random) : nil
            return .reload(Reload(changed: changed, withScope: Int.random(in: 0..<3, using: &random) != 0))
        case 14: return .openTeardowns
        case 0..<4:
            return .callers(Int.random(in: 1...4, using: &random), cancel: modes.randomElement(using: &random)!)
        case 4: return .cancelledCaller
        case 5..<7: return .openGates(nodes.indices.filter { _ in Bool.random(using: &random) })
        case 7: return .openLateGates
        case 8..<10:
            let partial = Bool.random(using: &random)
            // Of app services only: the app's reset refuses a scoped name as unknown.
            let names = nodes.indices.filter { !nodes[$0].scoped && Int.random(in: 0..<3, using: &random) == 0 }
            return .reset(partial ? names : nil)
        default: return .settle
        }
    }

    var description: String {
        let graph = nodes.map { node in
            var text = "\(node.name)<-\(node.dependencies.map { nodes[$0].name })"
            text += " \(node.steps.map(\.rawValue))"
            if node.gated { text += " gated" }
            if node.teardownFails { text += " teardownFails" }
            if node.teardownGated { text += " teardownGated" }
            if node.scoped { text += node.nested ? " nested" : " scoped" }
            return text
        }
        return "seed \(seed)\(failFast ? " failFast" : "")\(traced ? " traced" : "")\n  graph: "
            + graph.joined(separator: "; ") + "\n  operations: " + operations.map(\.description).joined(separator: ", ")
    }
}
