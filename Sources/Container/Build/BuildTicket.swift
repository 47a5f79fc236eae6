import Synchronization

/// One build of a generation, as its tasks see it: what every node run needs (the graph, the
/// generation and attempt, the scope instance, the trace), and the handle the coordinator
/// cancels or raises the build by.
///
/// The state machine makes the ticket in the critical section that records the build; the
/// tasks that run its nodes (its workers, see ``BuildWorker``) are created after the lock is
/// released and attach themselves here. A cancellation or a raise that comes before a worker
/// attaches is remembered and applied to it then, so no worker of a cancelled build runs a
/// provider unknowingly.
final class BuildTicket: Sendable {
    /// The workers attached so far and what happened to the build before they came.
    private struct Workers {
        var tasks: [Task<Void, Never>] = []
        var cancelled = false
        var priority: UInt8
    }

    /// The coordinator's id of the build.
    let id: Int
    let build: BuildAttempt
    let graph: ServiceGraph
    /// What the providers' contexts read: the generation, attempt, scope instance and parameters.
    let info: ProviderContext.BuildInfo
    let policy: BuildPolicy
    let tracer: Tracer
    /// The nodes' last run times (shared by every build of this graph).
    let runTimes: NodeRunTimes
    /// The quick work one worker takes on, in nanoseconds (see ``SchedulerTuning``).
    let inlineBudget: UInt32
    /// The main-actor nodes waiting for the main actor; `nil` when the graph has none.
    let mainLane: MainActorLane?
    private let workers: Mutex<Workers>

    init(
        id: Int, build: BuildAttempt, graph: ServiceGraph, info: ProviderContext.BuildInfo, policy: BuildPolicy,
        tracer: Tracer, runTimes: NodeRunTimes, inlineBudget: UInt32, priority: UInt8
    ) {
        self.id = id
        self.build = build
        self.graph = graph
        self.info = info
        self.policy = policy
        self.tracer = tracer
        self.runTimes = runTimes
        self.inlineBudget = inlineBudget
        mainLane = graph.hasMainActorNodes ? MainActorLane() : nil
        workers = Mutex(Workers(priority: priority))
    }

    /// The priority the build's tasks run at (a `TaskPriority.rawValue`), raised by its callers.
    var priority: UInt8 { workers.withLock { $0.priority } }

    /// Whether the build was cancelled (a reset, a shutdown, or fail-fast after a failure).
    var isCancelled: Bool { workers.withLock { $0.cancelled } }

    /// Runs `operation` in a new task of the build, at `priority` (default: the build's);
    /// `startingHere` starts it on the calling thread where the platform can (see
    /// ``TaskFeatures/detached(priority:startingHere:_:)``).
    func spawn(priority: UInt8? = nil, startingHere: Bool = false, _ operation: sending @escaping () async -> Void) {
        let build = self.priority
        let task = TaskFeatures.detached(priority: priority ?? build, startingHere: startingHere, operation)
        attach(task, buildPriority: build)
    }

    /// Runs `operation` in a new task of the build that starts on the main actor (one hop), at
    /// `priority`.
    func spawnOnMainActor(priority: UInt8, _ operation: @escaping @MainActor @Sendable () async -> Void) {
        // The closure's isolation is the task's first executor: it is enqueued on the main actor
        // directly, never run on the pool first.
        let build = self.priority
        let task = Task.detached(priority: TaskPriority(rawValue: priority), operation: operation)
        attach(task, buildPriority: build)
    }

    /// Adds `task` to the build's tasks, then applies a cancellation, or a raise of the build
    /// above `buildPriority` (its priority before the task was made), that came meanwhile.
    private func attach(_ task: Task<Void, Never>, buildPriority: UInt8) {
        let (cancelled, priority) = workers.withLock { workers in
            workers.tasks.append(task)
            return (workers.cancelled, workers.priority)
        }
        // A cancellation or raise that came while the task was being made reaches it now.
        if cancelled { task.cancel() }
        if priority > buildPriority { TaskFeatures.escalate(task, to: priority) }
    }

    /// Cancels every task of the build, now and as they attach.
    func cancel() {
        let tasks = workers.withLock { workers in
            workers.cancelled = true
            return workers.tasks
        }
        for task in tasks { task.cancel() }
    }

    /// Raises every task of the build to `priority`, now and as they attach.
    func escalate(to priority: UInt8) {
        let tasks = workers.withLock { workers -> [Task<Void, Never>] in
            guard priority > workers.priority else { return [] }
            workers.priority = priority
            return workers.tasks
        }
        for task in tasks { TaskFeatures.escalate(task, to: priority) }
    }

    /// Emits a trace event of this build, when anyone listens.
    func emit(_ kind: @autoclosure () -> TraceEvent.Kind) {
        guard tracer.isEnabled else { return }
        tracer.emit(kind(), build: build)
    }
}
