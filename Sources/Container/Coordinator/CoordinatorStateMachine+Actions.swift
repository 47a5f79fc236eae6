/// What each event of ``CoordinatorStateMachine`` asks its storage to do, after the lock is
/// released: one type per event, so the storage's `switch` shows everything an event can cause.
extension CoordinatorStateMachine {
    /// What a waiting caller receives.
    ///
    /// The error is boxed (`indirect`: an allocation only when a caller gets a failure), so an
    /// action carrying outcomes out of the critical section stays small.
    enum CallerOutcome {
        case snapshot(AppServices)
        indirect case failure(ContainerError)
        case cancelled
    }

    /// Callers to resume, all with one outcome.
    struct Resumption {
        let waiters: [Waiter]
        let outcome: CallerOutcome
    }

    /// Nodes to start in a new task of a build (a worker, see ``BuildWorker``).
    struct Launch {
        let ticket: BuildTicket
        let orders: WorkerOrders
        /// The requesting caller starts the task on its own thread (a build of a few quick nodes).
        var startsHere = false
    }

    /// App values a scope instance's build must fetch (and lease) before its nodes start, in a
    /// new task of the build that then runs the nodes they unblock.
    struct Fetch {
        let ticket: BuildTicket
        /// The part's external slots to fetch.
        let slots: [Int]
        var startsHere: Bool
    }

    /// What a request (or a launch) starts: nodes, app values to fetch, or both.
    struct Start {
        var launch: Launch?
        var fetch: Fetch?
    }

    /// The job to start once no build is in flight.
    enum NextJob {
        case none
        /// Tear these values down, in this order (dependents first).
        case tearDown([Teardowns.Teardown])
    }

    /// What to do once a job ended or something was queued.
    struct Lifecycle {
        /// Operations whose teardowns are all done: resume their waiters with these reports.
        var completed: [(waiter: OperationWaiter, report: ServiceContainer.ResetReport)] = []
        var next = NextJob.none
        /// The build that waited for its turn, launched.
        var start = Start()
        /// App values nothing of this coordinator uses any more: release them to the app.
        var release: [AnyServiceBox] = []
        /// Shutdowns refused while a graceful one drained, answered once it is traced.
        var refused: [(waiter: OperationWaiter, error: ContainerError)] = []
    }

    /// The answer to `requested`.
    enum RequestAction {
        /// Resume the caller at once.
        case answer(Waiter, CallerOutcome)
        /// The caller waits; raise the build's tasks to a priority; start what it added.
        case park(raise: (ticket: BuildTicket, priority: UInt8)?, start: Start)
    }

    /// The answer to `waiterCancelled`.
    enum CancelAction {
        /// The caller was answered already: nothing to do (exactly once).
        case none
        /// Resume the caller with `CancellationError`.
        case resume(Waiter)
    }

    /// The answer to `callerEscalated`.
    enum EscalationAction {
        case none
        /// Raise the build's tasks to this priority.
        case escalate(BuildTicket, priority: UInt8)
    }

    /// The answer to `nodeFinished`.
    struct NodeAction {
        let resume: [Resumption]
        /// Cancel the build's tasks (it failed fast).
        let cancel: BuildTicket?
        /// Set when the build ended: what comes after it.
        var then: Lifecycle?
    }

    /// The answer to `appValuesArrived`.
    struct AppValuesAction {
        /// Nodes the values unblocked, to start in the task that fetched them.
        let launch: Launch?
        /// More app values to fetch (needed by a request that came meanwhile).
        let fetch: Fetch?
        let resume: [Resumption]
        /// Values fetched for a build that was superseded meanwhile: release them at once.
        let release: [AnyServiceBox]
        /// Set when the build ended: what comes after it.
        let then: Lifecycle?
        /// The build's tasks to cancel: it failed with nodes still running.
        var cancel: BuildTicket? = nil
    }

    /// What a scope instance of this coordinator is asked to do by one of its operations.
    struct ChildOrder {
        enum Order {
            /// Supersede its generation: it leases some of these retired values (a child whose
            /// only retired ones are those it hands on to its nested scopes keeps its own).
            case supersede(retired: Set<ObjectIdentifier>)
            /// Rebuild it on a new part of the graph (a reload changed its scope).
            case reload(ServiceGraph, NodeRunTimes)
            /// Close it (a shutdown, or a reload removed its scope).
            case close

            /// Whether it is a close: the instance answers any other order itself, once.
            var isClose: Bool {
                if case .close = self { return true }
                return false
            }
        }
        let child: Child
        let id: Int
        let order: Order
        /// The operation whose report lists its teardowns.
        let operation: Int
    }

    /// What a reset, reload or shutdown ends: callers, a build, a published snapshot, children.
    struct Supersession {
        /// Callers to resume with the operation's error.
        let resume: [Resumption]
        /// Their names, for the trace.
        let labels: [String]
        /// The attempt their resumption is traced in.
        let attempt: BuildAttempt
        /// Cancel this build's tasks (its result is discarded when it ends).
        let cancel: BuildTicket?
        let cancelledBuild: BuildAttempt?
        /// Scope instances to supersede, reload or close.
        var children: [ChildOrder]
        /// The operation.
        let operation: Int
    }

    /// The answer to `resetRequested` and `reloadRequested`.
    enum OperationAction {
        /// Resume the operation at once with this error (shut down), after passing a close on
        /// to the instances still here when this coordinator is closing (see `closesForwarded()`).
        case refuse(OperationWaiter, ContainerError, forwarding: [ChildOrder] = [])
        /// Carry out the supersession, then go on; the operation completes in a later `Lifecycle`.
        case proceed(Supersession, then: Lifecycle)
    }

    /// The answer to `shutdownRequested`.
    enum ShutdownAction {
        /// Resume the operation at once with this error (already shut down), after passing the
        /// close on to the instances still here (see `closesForwarded()`).
        case refuse(OperationWaiter, ContainerError, forwarding: [ChildOrder])
        /// A build runs and may finish: close the children, arm the deadline, then call
        /// `shutdownDeadlinePassed(operation:)`.
        case drain(operation: Int, children: [ChildOrder])
        /// Carry out the supersession, then go on; the operation completes in a later `Lifecycle`.
        case proceed(Supersession, then: Lifecycle)

        /// Whether the shutdown was refused (it changes nothing).
        var isRefusal: Bool {
            if case .refuse = self { return true }
            return false
        }
    }

    /// The answer to `shutdownDeadlinePassed`.
    enum DeadlineAction {
        /// The build finished in time: nothing to do.
        case none
        /// Cancel the build and resume its callers with the shutdown error, then go on.
        case cancel(Supersession, then: Lifecycle)
    }

    /// The answer to `leaseRequested`.
    enum LeaseAnswer: Equatable {
        case leased
        /// A value was retired: ask again.
        case refused
        /// The child is closing or closed: its close order (which cancels its build) is on its
        /// way or was delivered.
        case childClosing
    }

    /// The answer to `childOpened`.
    enum ChildOpenAction {
        case opened(id: Int, child: Child)
        case refused(ContainerError)
    }
}

/// A change of the published snapshot, made by an event, applied by the storage in the same
/// critical section (so the hot path changes in the order of the transitions), and what the
/// observers of the snapshots are offered.
enum SnapshotChange: Sendable {
    case publish(AppServices)
    /// A reset or reload began a new generation: the published snapshot is cleared; `carried`
    /// holds the values the new generation kept (never published: for the observers that show
    /// services, see <doc:ObservingTheServices>).
    case newGeneration(carried: AppServices)
    /// The shutdown (close) cleared the published snapshot; its observers end in the same step.
    case clear
}
