/// The machine's answers to a build's life: launched, finished, failed upstream; and to the
/// end of a teardown job.
extension CoordinatorStateMachine {
    // MARK: Builds

    /// Records the task of build `id`, created for a ``BuildTicket``.
    mutating func buildLaunched(id: Int, handle: BuildHandle) {
        jobs.buildLaunched(id: id, handle: handle)
    }

    /// Build `id` ended with `result`.
    mutating func buildFinished(id: Int, result: BuildResult, now: Duration) -> BuildFinishedAction {
        let report = result.report
        if case .superseded(let owner) = jobs.buildFinished(id: id) {
            // Superseded by a reset, reload or shutdown: it never publishes, and its values
            // belong to the operation that superseded it (rule 7).
            record(.buildCancelled, report.build)
            jobs.enqueue(result.built.values, owner: owner)
            return .discard(then: continueLifecycle())
        }
        lastReport = report
        values.keep(result.built, report: report)
        switch phase {
        case .running(let running) where running.buildID == id:
            if report.succeeded {
                let snapshot = makeSnapshot(result)
                phase = .ready(snapshot)
                record(.snapshotPublished(services: snapshot.values.count), report.build)
                return .publish(snapshot, resume: resumeAll(.snapshot, of: report.build), then: continueLifecycle())
            }
            let error = failAttempt(running, report: report, now: now)
            return .fail(error, resume: resumeAll(.failure, of: report.build), then: continueLifecycle())
        case .draining(let running, let shutdown) where running.buildID == id:
            // A graceful shutdown let it finish: its callers get its outcome, then it all goes.
            let outcome: CallerOutcome =
                report.succeeded ? .snapshot(makeSnapshot(result)) : .failure(.buildFailed(report))
            let waiters = resumeAll(report.succeeded ? .snapshot : .failure, of: report.build)
            jobs.enqueue(values.retireAll(), owner: shutdown)
            phase = .shutDown(.shutDown(generation: generation))
            return .drained(outcome, resume: waiters, then: continueLifecycle())
        default:
            preconditionFailure("build \(id) finished as the current build in phase \(phase)")
        }
    }

    /// The snapshot of a build in which every node has a value (kept or made).
    func makeSnapshot(_ result: BuildResult) -> AppServices {
        guard let complete = result.values else { preconditionFailure("a succeeded build has every value") }
        return AppServices(
            generation: generation, report: result.report, layout: values.graph.layout, values: complete,
            scope: scopeInstance, appGeneration: result.appGeneration)
    }

    /// Build `id` of a scope instance could not get the app snapshot: the app build failed (or the
    /// app shut down). Its callers get the app's error; the attempt is not used up, so the next
    /// `start()` tries again (joining the app's next build).
    mutating func upstreamFailed(id: Int, error: ContainerError) -> BuildFinishedAction {
        if case .superseded = jobs.buildFinished(id: id) {
            record(.buildCancelled)
            return .discard(then: continueLifecycle())
        }
        guard case .running(let running) = phase, running.buildID == id else {
            if case .draining(_, let shutdown) = phase {
                let waiters = resumeAll(.failure, of: currentAttempt)
                jobs.enqueue(values.retireAll(), owner: shutdown)
                phase = .shutDown(.shutDown(generation: generation))
                return .drained(.failure(error), resume: waiters, then: continueLifecycle())
            }
            preconditionFailure("build \(id) ended upstream in phase \(phase)")
        }
        let build = BuildAttempt(generation: generation, attempt: running.attempt)
        record(.buildFailed(failure: error.failure ?? .transient, roots: [], exhausted: false), build)
        // The attempt happened (and is traced), but built nothing: it does not use up the budget.
        upstreamFailures += 1
        phase = .idle(attempt: running.attempt + 1)
        return .fail(error, resume: resumeAll(.failure, of: build), then: continueLifecycle())
    }

    /// Moves to the phase after a failed attempt and returns the callers' error.
    mutating func failAttempt(_ running: RunningAttempt, report: BuildReport, now: Duration) -> ContainerError {
        let failure = report.failure ?? .transient
        let builds = running.attempt - upstreamFailures
        let exhausted = failure == .transient && policy.maxAttempts.map { builds >= $0 } == true
        record(.buildFailed(failure: failure, roots: report.failedNodes, exhausted: exhausted), report.build)
        guard failure == .transient && !exhausted else {
            // Sticky: nothing can use this generation's values any more, so they go now (Coordinator rules, rule 4).
            let error =
                exhausted
                ? ContainerError.attemptsExhausted(report, maxAttempts: running.attempt) : .buildFailed(report)
            phase = .failed(error)
            jobs.enqueue(values.retireBuiltInThisGeneration(), owner: nil)
            return error
        }
        // Keep what succeeded: the next attempt reuses it instead of running it again (rule 3).
        let error = ContainerError.buildFailed(report)
        let delay = policy.retryAfter.delay(beforeRetry: running.attempt)
        phase =
            delay > .zero
            ? .backingOff(attempt: running.attempt + 1, allowedAt: now + delay, lastFailure: error)
            : .idle(attempt: running.attempt + 1)
        return error
    }

    /// Takes every parked caller, tracing each one's resumption with `result`.
    mutating func resumeAll(_ result: CallerResult, of build: BuildAttempt) -> [Waiter] {
        let (waiters, labels) = callers.removeAll(named: trace.isEnabled)
        if trace.isEnabled { for label in labels { record(.callerResumed(caller: label, result: result), build) } }
        return waiters
    }

    /// Records a trace event of the current attempt (or `build`), when anyone listens.
    mutating func record(_ kind: @autoclosure () -> TraceEvent.Kind, _ build: BuildAttempt? = nil) {
        guard trace.isEnabled else { return }
        trace.add(kind(), build ?? currentAttempt)
    }

    /// Traces a caller answered at once.
    mutating func traceAnswer(_ label: String, found: CallerState, result: CallerResult) {
        record(.callerJoined(caller: label, state: found))
        record(.callerResumed(caller: label, result: result))
    }

    // MARK: Teardowns

    /// A teardown job ended; `records` pair each torn-down value's owner with its result.
    mutating func teardownFinished(_ records: [Jobs.TeardownRecord]) -> Lifecycle {
        jobs.teardownFinished(records)
        return continueLifecycle()
    }

    /// With no job in flight: tears down what is queued, else completes the operations that
    /// waited for it and launches an attempt that waited for the slot.
    mutating func continueLifecycle() -> Lifecycle {
        switch jobs.next() {
        case .tearDown(let batch):
            return Lifecycle(completed: [], next: .tearDown(batch))
        case .idle(let completed):
            guard jobs.isIdle, case .running(var running) = phase, !running.launched else {
                return Lifecycle(completed: completed, next: .none)
            }
            running.launched = true
            phase = .running(running)
            jobs.buildStarted(id: running.buildID)
            let build = BuildAttempt(generation: generation, attempt: running.attempt)
            record(.buildStarted, build)
            let ticket = BuildTicket(
                id: running.buildID, build: build, graph: values.graph, kept: values.kept, earlierRuns: values.runs,
                priority: running.priority, missingSlots: values.missingSlots)
            return Lifecycle(completed: completed, next: .launch(ticket))
        }
    }
}
