/// What each event of ``CoordinatorStateMachine`` asks its storage to do, after the lock is
/// released: one type per event, so the storage's `switch` shows everything an event can cause.
extension CoordinatorStateMachine {
    /// What a waiting caller receives.
    ///
    /// The error is boxed (`indirect`, an allocation only when a caller gets a failure): a
    /// ``StartAction`` is copied a few times on its way out of the critical section, and every
    /// caller's would otherwise carry the 89 bytes of a `ContainerError`.
    enum CallerOutcome {
        case snapshot(AppServices)
        indirect case failure(ContainerError)
        case cancelled
    }

    /// A build to launch (see ``Container/BuildTicket``).
    typealias BuildTicket = Container.BuildTicket

    /// What to do once a job ended or something was queued.
    struct Lifecycle {
        /// Operations whose teardowns are all done: resume their waiters with these reports.
        var completed: [(waiter: OperationWaiter, report: ResetReport)]
        var next: NextJob
    }

    /// The job to start, if any.
    enum NextJob {
        case none
        /// Tear these values down, in this order (dependents first).
        case tearDown([Jobs.Teardown])
        /// Launch this build; its task is created in the same critical section (rule 1).
        case launch(BuildTicket)
    }

    /// The answer to `startRequested`.
    enum StartAction {
        /// Resume the caller at once.
        case answer(Waiter, CallerOutcome)
        /// The caller waits for the running (or soon launched) attempt.
        case park
        /// The caller waits; raise the build task to its priority.
        case escalate(BuildHandle, priority: UInt8)
        /// The caller waits for a new attempt: create its task now and report it with `buildLaunched`.
        case launch(BuildTicket)
    }

    /// The answer to `waiterCancelled`.
    enum CancelAction {
        /// The caller was answered already: nothing to do (exactly once, rule 6).
        case none
        /// Resume the caller with `CancellationError`.
        case resume(Waiter)
    }

    /// The answer to `buildFinished`.
    enum BuildFinishedAction {
        /// Publish the snapshot, resume the callers with it, then go on.
        case publish(AppServices, resume: [Waiter], then: Lifecycle)
        /// Resume the callers with the failure, then go on.
        case fail(ContainerError, resume: [Waiter], then: Lifecycle)
        /// A graceful shutdown let the build finish: resume its callers with `outcome` (nothing
        /// is published), then go on to the teardown.
        case drained(CallerOutcome, resume: [Waiter], then: Lifecycle)
        /// The build was superseded: nothing to publish, its values are queued for teardown.
        case discard(then: Lifecycle)
    }

    /// What a reset, reload or shutdown ends: callers, a build, a published snapshot.
    struct Supersession {
        /// Resume these callers with `error`.
        let resume: [Waiter]
        let error: ContainerError
        /// Cancel this build task (its result is discarded when it ends).
        let cancel: BuildHandle?
        /// Clear the published snapshot.
        let clearSnapshot: Bool
        /// The services whose values the operation retires: scope instances that use any of
        /// them are superseded too (see <doc:Scopes>).
        let retired: Set<String>
        /// The operation (its id); its report also lists the teardowns of the instances it superseded.
        let operation: Int
    }

    /// The answer to `resetRequested` and `reloadRequested`.
    enum OperationAction {
        /// Resume the operation at once with this error (shut down).
        case refuse(OperationWaiter, ContainerError)
        /// Carry out the supersession, then go on; the operation completes in a later `Lifecycle`.
        case proceed(Supersession, then: Lifecycle)
    }

    /// The answer to `shutdownRequested`.
    enum ShutdownAction {
        /// Resume the operation at once with this error (already shut down).
        case refuse(OperationWaiter, ContainerError)
        /// A build runs and may finish: arm the deadline, then call `shutdownDeadlinePassed(operation:)`.
        case drain(operation: Int)
        /// Carry out the supersession, then go on; the operation completes in a later `Lifecycle`.
        case proceed(Supersession, then: Lifecycle)
    }

    /// The answer to `shutdownDeadlinePassed`.
    enum DeadlineAction {
        /// The build finished in time: nothing to do.
        case none
        /// Cancel the build and resume its callers with the shutdown error, then go on.
        case cancel(Supersession, then: Lifecycle)
    }
}

extension CoordinatorStateMachine {
    /// The answer to `callerEscalated`.
    enum EscalationAction {
        case none
        /// Raise the build task to this priority.
        case escalate(BuildHandle, priority: UInt8)
    }
}

// What the storage does inside the critical section for each action: launch a build, change
// the published snapshot.

extension CoordinatorStateMachine.Lifecycle: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? {
        if case .launch(let ticket) = next { return ticket }
        return nil
    }
    var snapshotChange: SnapshotChange? { nil }
}

extension CoordinatorStateMachine.StartAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? {
        if case .launch(let ticket) = self { return ticket }
        return nil
    }
    var snapshotChange: SnapshotChange? { nil }
}

extension CoordinatorStateMachine.CancelAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? { nil }
    var snapshotChange: SnapshotChange? { nil }
}

extension CoordinatorStateMachine.EscalationAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? { nil }
    var snapshotChange: SnapshotChange? { nil }
}

extension CoordinatorStateMachine.BuildFinishedAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? {
        switch self {
        case .publish(_, _, let lifecycle), .fail(_, _, let lifecycle), .drained(_, _, let lifecycle),
            .discard(let lifecycle):
            lifecycle.ticket
        }
    }
    var snapshotChange: SnapshotChange? {
        if case .publish(let snapshot, _, _) = self { return .publish(snapshot) }
        return nil
    }
}

extension CoordinatorStateMachine.OperationAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? {
        if case .proceed(_, let lifecycle) = self { return lifecycle.ticket }
        return nil
    }
    var snapshotChange: SnapshotChange? {
        if case .proceed(let supersession, _) = self, supersession.clearSnapshot { return .clear }
        return nil
    }
}

extension CoordinatorStateMachine.ShutdownAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? {
        if case .proceed(_, let lifecycle) = self { return lifecycle.ticket }
        return nil
    }
    var snapshotChange: SnapshotChange? {
        if case .proceed(let supersession, _) = self, supersession.clearSnapshot { return .clear }
        return nil
    }
}

extension CoordinatorStateMachine.DeadlineAction: CoordinatorAction {
    var ticket: CoordinatorStateMachine.BuildTicket? {
        if case .cancel(_, let lifecycle) = self { return lifecycle.ticket }
        return nil
    }
    var snapshotChange: SnapshotChange? {
        if case .cancel(let supersession, _) = self, supersession.clearSnapshot { return .clear }
        return nil
    }
}
