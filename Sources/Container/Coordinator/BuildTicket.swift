import Synchronization

/// A build the state machine asks to launch: the storage creates its task in the same critical
/// section and hands it this ticket.
///
/// A class: the actions that carry a ticket out of the critical section are copied a few times
/// on the way, and a reference costs one retain where a struct's fields cost one each. Not
/// nested in the generic state machine: a generic class looks its metadata up at run time.
///
/// The build task takes the kept values and the earlier runs out once (``takeInputs()``). Its
/// closure keeps the ticket until the task ends; had it kept those arrays too, they would stay
/// shared with the coordinator, whose first write after the build (keeping what it made) would
/// copy them whole: after a partial reset of a large graph, a copy of every value to keep one.
final class BuildTicket: Sendable {
    /// The values a build starts with and the runs of earlier attempts.
    struct Inputs {
        /// Values kept from earlier attempts or generations, by slot.
        let kept: SlotValues
        /// Provider runs of each node in the generation's earlier attempts, by slot (empty: none).
        let earlierRuns: [Int]
    }

    /// The build task of a build started on the launching thread, and what happened to it
    /// before the task was known (see ``BuildTaskHandle/startedOnLaunchingThread(_:)``).
    private struct Started {
        var task: Task<Void, Never>?
        var cancelled = false
        var priority: UInt8?
    }

    let id: Int
    let build: BuildAttempt
    let graph: ServiceGraph
    /// The priority to run the build task at (`TaskPriority.rawValue`).
    let priority: UInt8
    /// The slots to build, ascending, when the coordinator knows they are few (see
    /// ``GenerationValues/missingSlots``); `nil`: the build finds them in the kept values.
    let missingSlots: [Int]?
    private let inputs: Mutex<Inputs?>
    private let started = Mutex(Started())

    init(
        id: Int, build: BuildAttempt, graph: ServiceGraph, kept: SlotValues, earlierRuns: [Int], priority: UInt8,
        missingSlots: [Int]? = nil
    ) {
        self.id = id
        self.build = build
        self.graph = graph
        self.priority = priority
        self.missingSlots = missingSlots
        inputs = Mutex(Inputs(kept: kept, earlierRuns: earlierRuns))
    }

    /// The kept values and earlier runs; the build task takes them once.
    func takeInputs() -> Inputs {
        guard let taken = inputs.withLock({ $0.take() }) else { preconditionFailure("a build's inputs are taken once") }
        return taken
    }

    /// The build task of a build started on the launching thread, once it is known: until the
    /// build first suspends (or ends), its `Task` does not exist for anyone but the build itself.
    /// A cancellation or escalation that comes sooner is remembered and applied then.
    func attach(_ task: Task<Void, Never>) {
        let (cancelled, priority) = started.withLock { started in
            started.task = task
            return (started.cancelled, started.priority)
        }
        if cancelled { task.cancel() }
        if let priority { TaskFeatures.escalate(task, to: priority) }
    }

    /// Cancels the build task, now or once it is attached.
    func cancelTask() {
        let task = started.withLock { started in
            started.cancelled = true
            return started.task
        }
        task?.cancel()
    }

    /// Raises the build task's priority, now or once it is attached.
    func escalateTask(to priority: UInt8) {
        let task = started.withLock { started in
            started.priority = max(started.priority ?? 0, priority)
            return started.task
        }
        if let task { TaskFeatures.escalate(task, to: priority) }
    }

    /// The kept values, while not taken (for tests of the state machine).
    var kept: SlotValues { inputs.withLock { $0?.kept ?? SlotValues() } }
}
