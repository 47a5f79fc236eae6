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

    let id: Int
    let build: BuildAttempt
    let graph: ServiceGraph
    /// The priority to run the build task at (`TaskPriority.rawValue`).
    let priority: UInt8
    private let inputs: Mutex<Inputs?>

    init(id: Int, build: BuildAttempt, graph: ServiceGraph, kept: SlotValues, earlierRuns: [Int], priority: UInt8) {
        self.id = id
        self.build = build
        self.graph = graph
        self.priority = priority
        inputs = Mutex(Inputs(kept: kept, earlierRuns: earlierRuns))
    }

    /// The kept values and earlier runs; the build task takes them once.
    func takeInputs() -> Inputs {
        guard let taken = inputs.withLock({ $0.take() }) else { preconditionFailure("a build's inputs are taken once") }
        return taken
    }

    /// The kept values, while not taken (for tests of the state machine).
    var kept: SlotValues { inputs.withLock { $0?.kept ?? SlotValues() } }
}
