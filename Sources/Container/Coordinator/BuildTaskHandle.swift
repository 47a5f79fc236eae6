/// How the coordinator reaches a running build's task: to cancel it (a reset, a close) or to
/// raise its priority (a caller that waits at a higher one).
enum BuildTaskHandle: Sendable {
    /// A build task created in the critical section that launched the build.
    case task(Task<Void, Never>)
    /// A build started on the launching thread (see
    /// ``CoordinatorEnvironment/startsOnLaunchingThread(_:)``): its ticket gets the task once
    /// the build first suspends or ends, and applies what came before.
    case startedOnLaunchingThread(BuildTicket)

    /// Cancels the build's task.
    func cancel() {
        switch self {
        case .task(let task): task.cancel()
        case .startedOnLaunchingThread(let ticket): ticket.cancelTask()
        }
    }

    /// Raises the build task's priority to `priority` (a `TaskPriority.rawValue`).
    func escalate(to priority: UInt8) {
        switch self {
        case .task(let task): TaskFeatures.escalate(task, to: priority)
        case .startedOnLaunchingThread(let ticket): ticket.escalateTask(to: priority)
        }
    }
}
