/// What the machine tells about itself: its status and the invariants it keeps.
extension CoordinatorStateMachine {
    // MARK: Status

    /// The machine's part of ``ContainerStatus``.
    func status(openScopes: [String]) -> ContainerStatus {
        let state: ContainerStatus.State
        var failure: ContainerError?
        var nextAttemptAt: Duration?
        switch phase {
        case .idle: state = .idle
        case .running: state = .running
        case .ready: state = .ready
        case .backingOff(_, let allowedAt, let lastFailure):
            state = .waiting
            failure = lastFailure
            nextAttemptAt = allowedAt
        case .failed(let error):
            state = .failed
            failure = error
        case .draining: state = .shuttingDown
        case .shutDown: state = .shutDown
        }
        if failure == nil, let lastReport, !lastReport.succeeded, !lastReport.wasCancelled {
            failure = .buildFailed(lastReport)
        }
        return ContainerStatus(
            state: state, generation: generation, attempt: currentAttempt.attempt, lastBuild: lastReport,
            lastFailure: failure, nextAttemptAt: nextAttemptAt, openScopes: openScopes, waitingCallers: callers.count,
            unreportedTeardowns: jobs.unreported)
    }

    // MARK: Invariants

    /// Every broken invariant of the machine and its parts; empty when it is consistent.
    func invariantViolations() -> [String] {
        var violations = callers.invariantViolations() + jobs.invariantViolations() + values.invariantViolations()
        func require(_ condition: Bool, _ text: @autoclosure () -> String) {
            if !condition { violations.append(text()) }
        }
        switch phase {
        case .running(let running), .draining(let running, _):
            if running.launched {
                require(jobs.buildID == running.buildID, "a launched attempt is the build in flight")
            } else {
                require(!jobs.isIdle, "an attempt waits to launch only while a job is in flight")
            }
        case .ready(let snapshot):
            require(callers.isEmpty, "nobody waits when ready")
            require(snapshot.generation == generation, "the published snapshot is of this generation")
            require(values.kept.count == values.graph.builtCount, "a ready generation keeps every value")
        case .idle, .backingOff, .failed:
            require(callers.isEmpty, "nobody waits without a running attempt")
        case .shutDown:
            require(callers.isEmpty && values.kept.isEmpty, "nothing waits or lives after a shutdown")
        }
        return violations.map { "\($0) (phase \(phase))" }
    }

    /// Debug builds: stops at the first event after which an invariant is broken.
    func _checkInvariants() {
        #if DEBUG
            let violations = invariantViolations()
            assert(violations.isEmpty, "coordinator invariants broken: \(violations)")
        #endif
    }
}
