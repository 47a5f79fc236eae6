@testable import Container

extension CoordinatorStateMachine {
    /// What a node's end asks, with the nodes it starts beside (the storage passes a reused
    /// buffer instead; tests read them as a value).
    struct NodeEnd {
        let orders: WorkerOrders
        let resume: [Resumption]
        let cancel: BuildTicket?
        let then: Lifecycle?
    }

    /// A node of build `id` ended with `result` (see ``nodeFinished(build:_:launching:now:)``).
    mutating func nodeFinished(build id: Int, _ result: NodeResult, now: Duration) -> NodeEnd {
        var orders = WorkerOrders.none
        let action = nodeFinished(build: id, result, launching: &orders, now: now)
        return NodeEnd(orders: orders, resume: action.resume, cancel: action.cancel, then: action.then)
    }
}
