/// Between builds: the teardown jobs, the operations that waited for them, and the launch of
/// the build that waited for its turn.
extension CoordinatorStateMachine {
    /// A teardown job ended; `records` pair each torn-down value's owner with its result.
    mutating func teardownFinished(_ records: [Teardowns.TeardownRecord], now: Duration) -> Lifecycle {
        teardowns.teardownFinished(records)
        return continueLifecycle(now: now)
    }

    /// With no build in flight: tears down what is queued (once no scope instance leases it),
    /// else completes the operations that waited for it, releases app values nothing uses any
    /// more, and launches the build that waited for its turn.
    mutating func continueLifecycle(now: Duration) -> Lifecycle {
        // A superseded build still running: its late values go to its operation's teardown first.
        guard stopping == nil else { return Lifecycle() }
        guard build?.isLaunched != true else {
            // A build of this generation runs (its nodes may take any time): no teardown starts,
            // but a reset or reload whose teardowns are done and whose scope instances have ended
            // (they may report after the build launched) completes now, not when the build ends.
            // A graceful shutdown (draining) waits for the build.
            guard case .open = phase else { return Lifecycle() }
            return Lifecycle(completed: teardowns.completedOperations())
        }
        switch teardowns.next(isLeased: children.isLeased) {
        case .tearDown(let batch):
            return Lifecycle(next: .tearDown(batch))
        case .idle(let completed):
            var lifecycle = Lifecycle(completed: completed)
            guard !teardowns.hasWork else { return lifecycle }
            // A value handed on to a nested instance goes back only once that instance let it go.
            if children.isEmpty {
                lifecycle.release = releasing
                releasing = []
            } else {
                lifecycle.release = releasing.filter { !children.isLeased($0) }
                releasing.removeAll { !children.isLeased($0) }
            }
            if build != nil { lifecycle.start = launch(fromCaller: false, now: now) }
            return lifecycle
        }
    }
}
