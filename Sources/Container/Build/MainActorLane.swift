import Synchronization

/// The main-actor nodes of one build waiting for the main actor, and the priorities whose batch
/// is running there (or on its way): the ready main-actor nodes of a build and of one priority
/// take **one hop** to the main actor together, at that priority, and run there one after
/// another, longest remaining path first.
///
/// A worker that gets main-actor nodes submits them here; a submit of a priority whose batch
/// does not run tells it to start one (``BuildWorker`` spawns a task on the main actor at that
/// priority), later ones only queue. A batch takes nodes of its priority until none waits, which
/// ends it in the same critical section, so a node submitted at that moment starts the next
/// batch and none is forgotten. A node declared `high` that becomes ready while a `medium` batch
/// runs thus runs at `high`, in a hop of its own.
final class MainActorLane: Sendable {
    private struct State {
        /// Nodes waiting for the main actor, with their remaining path (their rank).
        var queue: [(launch: NodeLaunch, rank: UInt64)] = []
        /// The priorities whose batch runs or is on its way (a `TaskPriority.rawValue` each).
        var active: [UInt8] = []
        /// Each node's remaining path, made by the first submit of several nodes.
        var ranks: [UInt64]?
    }

    private let state = Mutex(State())

    /// Queues `launches`; returns the priorities whose batch the caller must start (none runs or
    /// is on its way), in the order of `launches`.
    func submit(_ launches: [NodeLaunch], of ticket: BuildTicket) -> [UInt8] {
        // A lone node needs no order: the ranks are made only once two wait together.
        let ranks = launches.count > 1 || state.withLock { !$0.queue.isEmpty } ? ranks(of: ticket) : nil
        return state.withLock { state in
            var starts: [UInt8] = []
            for launch in launches {
                state.queue.append((launch, ranks?[launch.slot] ?? 0))
                guard !state.active.contains(launch.priority) else { continue }
                state.active.append(launch.priority)
                starts.append(launch.priority)
            }
            return starts
        }
    }

    /// The waiting node of `priority` with the longest remaining path (the earliest of equals),
    /// taken out; `nil` when none waits, which ends that priority's batch.
    func next(at priority: UInt8) -> NodeLaunch? {
        state.withLock { state in
            var best: Int?
            for index in state.queue.indices where state.queue[index].launch.priority == priority {
                if best.map({ state.queue[index].rank > state.queue[$0].rank }) ?? true { best = index }
            }
            guard let best else {
                state.active.removeAll { $0 == priority }
                return nil
            }
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
