/// A node the state machine starts (its dependencies' values are in its build's
/// ``BuildValues``, read by its provider's context).
struct NodeLaunch: Sendable {
    let slot: Int
    /// Provider runs of the node in the generation's earlier builds.
    let earlierRuns: Int
    /// The priority to run it at (a `TaskPriority.rawValue`): its own, raised to that of the
    /// requests waiting for it (see ``ServicePriority``).
    var priority: UInt8 = 0
}

/// What one node's run produced.
///
/// Small on purpose: a child task returns it, and the child's frames must fit in the task's
/// first allocation slab (past it, every child costs a malloc that its parent frees on another
/// thread, where the allocator's lock makes threads wait). The rare failure is boxed.
struct NodeResult: Sendable {
    /// A failure, out of line.
    private indirect enum Boxed: Sendable {
        case failure(NodeOutcome.Failure)
    }

    let slot: Int
    /// `.succeeded`, `.failed`, `.cancelledWhileRunning` or `.cancelledBeforeStart`.
    let status: BuildRecords.Status
    /// Where it ran, and at what priority (a `TaskPriority.rawValue`; 0: it did not run).
    let executor: BuildReport.Executor
    let priority: UInt8
    /// Whether it was the first node of a main-actor batch (the report counts the hops).
    var opensBatch = false
    /// The value, when it succeeded.
    let box: AnyServiceBox?
    private let boxedFailure: Boxed?
    let runs: Int
    /// When the provider first started, and when the node reached its outcome.
    let startedAt: Duration
    let endedAt: Duration

    init(
        slot: Int, status: BuildRecords.Status, box: AnyServiceBox?, failure: NodeOutcome.Failure?, runs: Int,
        startedAt: Duration, endedAt: Duration, executor: BuildReport.Executor = .pool, priority: UInt8 = 0
    ) {
        self.slot = slot
        self.status = status
        self.executor = executor
        self.priority = priority
        self.box = box
        boxedFailure = failure.map { .failure($0) }
        self.runs = runs
        self.startedAt = startedAt
        self.endedAt = endedAt
    }

    /// The failure, when it failed.
    var failure: NodeOutcome.Failure? {
        guard case .failure(let failure)? = boxedFailure else { return nil }
        return failure
    }

    /// A node that never started because its build was cancelled first.
    static func cancelledBeforeStart(_ slot: Int, at time: Duration) -> NodeResult {
        NodeResult(
            slot: slot, status: .cancelledBeforeStart, box: nil, failure: nil, runs: 0, startedAt: time, endedAt: time)
    }
}

/// Runs one node's provider with its timeout and its retries of transient errors, and
/// classifies what it throws (the Coordinator rules article).
enum NodeRunner {
    /// Runs `launch`'s provider in the calling task, on its executor (`nonisolated(nonsending)`:
    /// a main-actor batch calls it on the main actor, and the provider runs there).
    nonisolated(nonsending) static func run(
        _ launch: NodeLaunch, of ticket: BuildTicket, on executor: BuildReport.Executor = .pool
    ) async -> NodeResult {
        let node = ticket.graph.nodes[launch.slot]
        // A synchronous provider runs without a suspension, in any build.
        if node.isSynchronous { return runNow(launch, of: ticket, on: executor) }
        let startedAt = started(node, launch, of: ticket, on: executor)
        guard node.timeout == nil else {
            return await runSlowly(
                launch, node: node, ticket: ticket, startedAt: startedAt, firstError: nil, on: executor)
        }
        // The common case (no timeout, succeeds at once) is all this frame holds: a node's
        // frame outgrowing its task's first allocation slab costs a malloc per node.
        do {
            let box = try await node.provider.make(
                ProviderContext(node: node, build: ticket.info, run: 1, runInGeneration: launch.earlierRuns + 1))
            return succeeded(launch, box, startedAt: startedAt, of: ticket, on: executor)
        } catch {
            return await runSlowly(
                launch, node: node, ticket: ticket, startedAt: startedAt, firstError: error, on: executor)
        }
    }

    /// Reads the clock, then traces the node's start; returns the time read (out of line, like
    /// ``succeeded(_:_:startedAt:of:on:)``: kept out of ``run(_:of:on:)``'s frame).
    @inline(never)
    private static func started(
        _ node: ServiceGraph.Node, _ launch: NodeLaunch, of ticket: BuildTicket, on executor: BuildReport.Executor
    ) -> Duration {
        let startedAt = ticket.tracer.now
        announce(node, of: ticket, on: executor, at: launch.priority)
        return startedAt
    }

    /// The result of a node whose first run made `box` (kept out of ``run(_:of:on:)``'s frame).
    @inline(never)
    private static func succeeded(
        _ launch: NodeLaunch, _ box: AnyServiceBox, startedAt: Duration, of ticket: BuildTicket,
        on executor: BuildReport.Executor
    ) -> NodeResult {
        NodeResult(
            slot: launch.slot, status: .succeeded, box: box, failure: nil, runs: 1, startedAt: startedAt,
            endedAt: ticket.tracer.now, executor: executor, priority: launch.priority)
    }

    /// Runs `launch`'s synchronous provider on the calling thread (once: a synchronous node has
    /// no timeout and no retries), and classifies what it throws; `executor` is where that
    /// thread is, for the report and the trace.
    @inline(never)
    static func runNow(_ launch: NodeLaunch, of ticket: BuildTicket, on executor: BuildReport.Executor = .pool)
        -> NodeResult
    {
        let slot = launch.slot
        let node = ticket.graph.nodes[slot]
        guard let makeNow = node.provider.makeNow else { preconditionFailure("node \(node.name) is not synchronous") }
        let startedAt = ticket.tracer.now
        announce(node, of: ticket, on: executor, at: launch.priority)
        let context = ProviderContext(node: node, build: ticket.info, run: 1, runInGeneration: launch.earlierRuns + 1)
        do {
            let box = try makeNow(context)
            return NodeResult(
                slot: slot, status: .succeeded, box: box, failure: nil, runs: 1, startedAt: startedAt,
                endedAt: ticket.tracer.now, executor: executor, priority: launch.priority)
        } catch {
            // Cancellation is never a failure, nor an error thrown because of it: the build was
            // cancelled while the provider held the thread.
            if ticket.isCancelled {
                return NodeResult(
                    slot: slot, status: .cancelledWhileRunning, box: nil, failure: nil, runs: 1, startedAt: startedAt,
                    endedAt: ticket.tracer.now, executor: executor, priority: launch.priority)
            }
            let failure = NodeOutcome.Failure(
                kind: classify(error, node: node, policy: ticket.policy),
                message: ticket.info.redactor.redact(String(describing: error)), error: error)
            return NodeResult(
                slot: slot, status: .failed, box: nil, failure: failure, runs: 1, startedAt: startedAt,
                endedAt: ticket.tracer.now, executor: executor, priority: launch.priority)
        }
    }

    /// Traces `node.started` (not inlined: a trace event is large, and kept out of the frame).
    @inline(never)
    private static func announce(
        _ node: ServiceGraph.Node, of ticket: BuildTicket, on executor: BuildReport.Executor, at priority: UInt8
    ) {
        ticket.emit(
            .nodeStarted(
                node: node.name, executor: executor,
                priority: priority == 0 ? nil : ServicePriority(rawValue: priority)))
    }

    /// The rest of ``run(_:of:on:)``: the timeout, and what follows an error (`firstError`, thrown
    /// by the first run; `nil`: the first run has not happened yet).
    @inline(never)
    nonisolated(nonsending) private static func runSlowly(
        _ launch: NodeLaunch, node: ServiceGraph.Node, ticket: BuildTicket, startedAt: Duration,
        firstError: (any Error)?, on executor: BuildReport.Executor
    ) async -> NodeResult {
        let slot = launch.slot
        var run = 1
        var pending = firstError
        func ended(_ status: BuildRecords.Status, _ box: AnyServiceBox? = nil, _ failure: NodeOutcome.Failure? = nil)
            -> NodeResult
        {
            NodeResult(
                slot: slot, status: status, box: box, failure: failure, runs: run, startedAt: startedAt,
                endedAt: ticket.tracer.now, executor: executor, priority: launch.priority)
        }
        while true {
            do {
                if let error = pending {
                    pending = nil
                    throw error
                }
                let context = ProviderContext(
                    node: node, build: ticket.info, run: run,
                    runInGeneration: launch.earlierRuns + run)
                return ended(.succeeded, try await invoke(node, context))
            } catch {
                // Cancellation is never a failure; neither is an error thrown because of it.
                if error is CancellationError || Task.isCancelled { return ended(.cancelledWhileRunning) }
                let kind = classify(error, node: node, policy: ticket.policy)
                if kind == .transient && run < node.retry.maxAttempts {
                    let delay = node.retry.delay(beforeRetry: run)
                    ticket.emit(.nodeRetrying(node: node.name, retry: run, delay: delay))
                    if delay > .zero { try? await Task.sleep(for: delay) }
                    if Task.isCancelled { return ended(.cancelledWhileRunning) }
                    run += 1
                    continue
                }
                let message = ticket.info.redactor.redact(String(describing: error))
                return ended(.failed, nil, NodeOutcome.Failure(kind: kind, message: message, error: error))
            }
        }
    }

    /// Calls the provider, racing it against the node's timeout when it has one.
    nonisolated(nonsending) private static func invoke(
        _ node: ServiceGraph.Node, _ context: ProviderContext
    ) async throws -> AnyServiceBox {
        guard let timeout = node.timeout else { return try await node.provider.make(context) }
        return try await withThrowingTaskGroup(of: AnyServiceBox?.self) { group in
            // The racing child runs on the node's executor: a main-actor provider stays there.
            if node.runsOnMainActor {
                let onMain: @MainActor @Sendable () async throws -> AnyServiceBox? = {
                    try await node.provider.make(context)
                }
                group.addTask(operation: onMain)
            } else {
                group.addTask { try await node.provider.make(context) }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil  // the timer fired (or the node was cancelled)
            }
            do {
                if let box = try await group.next()! {
                    group.cancelAll()
                    return box
                }
                group.cancelAll()
                // The provider's own word, when it comes after the timeout, still counts: a late
                // value is committed and cancellation does not rewrite history; a late error
                // keeps its own classification and message. Only a provider that stops because of
                // the cancellation (CancellationError) timed out.
                do {
                    if case let box?? = try await group.next() { return box }
                } catch is CancellationError {
                    // It honoured the cancellation: the timeout (or the build's cancellation) decides.
                }
                if Task.isCancelled { throw CancellationError() }
                throw ServiceSpec.TimeoutError(service: node.name, timeout: timeout)
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// The error's own word, then the node's config, then its provider, then the container.
    static func classify(_ error: any Error, node: ServiceGraph.Node, policy: BuildPolicy) -> FailureKind {
        if let classified = error as? any ClassifiedError { return classified.failureKind }
        if let configured = node.defaultFailure { return configured }
        if let byProvider = node.provider.classify(error) { return byProvider }
        return policy.classifier(error)
    }
}
