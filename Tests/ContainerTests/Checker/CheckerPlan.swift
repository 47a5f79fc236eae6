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

        var description: String {
            switch self {
            case .callers(let count, let cancel): "callers(\(count), \(cancel))"
            case .cancelledCaller: "cancelledCaller"
            case .openGates(let nodes): "openGates(\(nodes))"
            case .openLateGates: "openLateGates"
            case .reset(let nodes): "reset(\(nodes.map { "\($0)" } ?? "all"))"
            case .settle: "settle"
            }
        }
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
                    gated: Bool.random(using: &random), teardownFails: Int.random(in: 0..<4, using: &random) == 0))
        }
        self.nodes = nodes
        failFast = Int.random(in: 0..<5, using: &random) == 0
        traced = Int.random(in: 0..<4, using: &random) != 0
        var operations: [Operation] = []
        for _ in 0..<Int.random(in: 2...9, using: &random) {
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<4:
                let modes: [CancelMode] = traced ? [.none, .none, .immediately, .afterJoining] : [.none, .immediately]
                operations.append(
                    .callers(Int.random(in: 1...4, using: &random), cancel: modes.randomElement(using: &random)!))
            case 4: operations.append(.cancelledCaller)
            case 5..<7:
                operations.append(.openGates(nodes.indices.filter { _ in Bool.random(using: &random) }))
            case 7: operations.append(.openLateGates)
            case 8..<10:
                let partial = Bool.random(using: &random)
                operations.append(
                    .reset(partial ? nodes.indices.filter { _ in Int.random(in: 0..<3, using: &random) == 0 } : nil))
            default: operations.append(.settle)
            }
        }
        self.operations = operations
    }

    var description: String {
        let graph = nodes.map { node in
            var text = "\(node.name)<-\(node.dependencies.map { nodes[$0].name })"
            text += " \(node.steps.map(\.rawValue))"
            if node.gated { text += " gated" }
            if node.teardownFails { text += " teardownFails" }
            return text
        }
        return "seed \(seed)\(failFast ? " failFast" : "")\(traced ? " traced" : "")\n  graph: "
            + graph.joined(separator: "; ") + "\n  operations: " + operations.map(\.description).joined(separator: ", ")
    }
}
