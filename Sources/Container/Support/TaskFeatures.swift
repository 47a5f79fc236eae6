/// The task features newer than the package's minimum platforms (macOS 15, iOS 18, tvOS 18,
/// watchOS 11, visionOS 2), each behind `if #available` with a fallback that keeps the behaviour
/// and loses only speed: the one place the runtime touches them (CI's availability audit checks
/// that no other place does).
enum TaskFeatures {
    /// Raises `task`'s priority to `priority` (a `TaskPriority.rawValue`). Before the OS 26
    /// releases a task cannot be raised from outside: it keeps the priority it was created with
    /// (a caller that waits at a higher one then waits for a build of a lower one).
    static func escalate(_ task: Task<Void, Never>, to priority: UInt8) {
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            task.escalatePriority(to: TaskPriority(rawValue: priority))
        }
    }

    /// A detached task running `operation` at `priority`; with `startingHere`, started on the
    /// calling thread up to its first suspension (`Task.immediateDetached`) where the OS has it,
    /// otherwise enqueued like any detached task (a thread is then woken to run it).
    static func detached(
        priority: UInt8, startingHere: Bool, _ operation: sending @escaping () async -> Void
    ) -> Task<Void, Never> {
        let priority = TaskPriority(rawValue: priority)
        if startingHere, #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return Task.immediateDetached(priority: priority, operation: operation)
        }
        return Task.detached(priority: priority, operation: operation)
    }

    /// Runs `operation`, calling `onEscalated` with the new priority whenever the current task is
    /// raised while it runs. Before the OS 26 releases no handler can be installed: `operation`
    /// runs alone, and a raise of the caller does not reach what it waits for.
    static func withEscalationHandler<Value, Failure: Error>(
        _ operation: () async throws(Failure) -> Value, onEscalated: @escaping @Sendable (UInt8) -> Void
    ) async throws(Failure) -> Value {
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            return try await withTaskPriorityEscalationHandler(operation: operation) { _, new in
                onEscalated(new.rawValue)
            }
        }
        return try await operation()
    }
}
