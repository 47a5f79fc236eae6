import Synchronization

/// The main-actor nodes of one build waiting for the main actor, and whether a batch is running
/// there (or on its way): the ready main-actor nodes of a build take **one hop** to the main
/// actor together, and run there one after another, longest remaining path first.
///
/// A worker that gets main-actor nodes submits them here; the first submit while no batch runs
/// tells it to start one (``BuildWorker`` spawns a task on the main actor), later ones only
/// queue. The batch takes nodes until the queue is empty, which ends it in the same critical
/// section, so a node submitted at that moment starts the next batch and none is forgotten.
final class MainActorLane: Sendable {
    private struct State {
        /// Nodes waiting for the main actor, with their remaining path (their rank).
        var queue: [(launch: NodeLaunch, rank: UInt64)] = []
        /// Whether a batch runs or is on its way.
        var isActive = false
        /// Each node's remaining path, made by the first submit of several nodes.
        var ranks: [UInt64]?
    }

    private let state = Mutex(State())

    /// Queues `launches`; returns whether the caller must start a batch (none runs or is on its way).
    func submit(_ launches: [NodeLaunch], of ticket: BuildTicket) -> Bool {
        // A lone node needs no order: the ranks are made only once two wait together.
        let ranks = launches.count > 1 || state.withLock { !$0.queue.isEmpty } ? ranks(of: ticket) : nil
        return state.withLock { state in
            for launch in launches { state.queue.append((launch, ranks?[launch.slot] ?? 0)) }
            guard !state.isActive else { return false }
            state.isActive = true
            return true
        }
    }

    /// The waiting node with the longest remaining path (the earliest of equals), taken out;
    /// `nil` when none waits, which ends the batch.
    func next() -> NodeLaunch? {
        state.withLock { state in
            guard var best = state.queue.indices.first else {
                state.isActive = false
                return nil
            }
            for index in state.queue.indices where state.queue[index].rank > state.queue[best].rank { best = index }
            return state.queue.remove(at: best).launch
        }
    }

    /// The nodes still waiting for the main actor, taken out (their build was cancelled: they
    /// end without waiting for the main actor). A batch on its way then finds none and ends.
    func takeWaiting() -> [NodeLaunch] {
        state.withLock { state in
            defer { state.queue = [] }
            return state.queue.map(\.launch)
        }
    }

    /// Each node's remaining path in `ticket`'s graph, made once per build.
    private func ranks(of ticket: BuildTicket) -> [UInt64] {
        if let ranks = state.withLock({ $0.ranks }) { return ranks }
        // Made outside the lock (a pass over the graph); a racing submit makes the same.
        let ranks = Self.remainingPaths(in: ticket.graph, times: ticket.runTimes)
        state.withLock { $0.ranks = ranks }
        return ranks
    }

    /// The time it takes, at least, from each node's start to the end of the graph: its own run
    /// time plus the longest remaining path of its dependents (the run times the container kept;
    /// a node that never ran counts as ``unknownRunTime``, so the graph's shape decides then).
    static func remainingPaths(in graph: ServiceGraph, times: NodeRunTimes) -> [UInt64] {
        var remaining = [UInt64](repeating: 0, count: graph.nodes.count)
        for slot in graph.topologicalOrder.reversed() {
            let known = times.last(slot)
            let own = known == NodeRunTimes.unknown ? unknownRunTime : UInt64(known)
            var longest: UInt64 = 0
            for dependent in graph.dependents[slot] { longest = max(longest, remaining[dependent]) }
            remaining[slot] = own + longest
        }
        return remaining
    }

    /// What a node that never ran counts for in ``remainingPaths(in:times:)``, in nanoseconds.
    static let unknownRunTime: UInt64 = 1_000
}
