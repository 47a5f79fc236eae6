/// One node's run: its provider, with its timeout and its retries (see <doc:CoordinatorRules>).
extension GraphBuilder {
    /// Runs one node's provider, with its timeout and its retries of transient errors.
    ///
    /// The common case (a provider without a timeout that succeeds at once) is all this frame
    /// holds; the rest is out of line in ``runNodeSlowly(_:node:startedAt:firstError:)``. A
    /// child task's frames live in its allocator's first slab unless they outgrow it, and a
    /// frame holding the retry loop, the timeout and the error handling outgrew it: a malloc
    /// and a free per node.
    func runNode(_ slot: Int) async -> NodeResult {
        let node = graph.nodes[slot]
        let startedAt = tracer.now
        guard node.timeout == nil else {
            return await runNodeSlowly(slot, node: node, startedAt: startedAt, firstError: nil)
        }
        let context = ProviderContext(
            build: self, node: node, slot: slot, run: 1, runInGeneration: earlierRuns(of: slot) + 1)
        let box: AnyServiceBox
        do {
            box = try await node.provider.make(context)
        } catch {
            return await runNodeSlowly(slot, node: node, startedAt: startedAt, firstError: error)
        }
        return NodeResult(
            slot: slot, status: .succeeded, box: box, failure: nil, runs: 1, startedAt: startedAt,
            endedAt: tracer.now)
    }

    /// Provider runs of `slot` in the generation's earlier attempts.
    private func earlierRuns(of slot: Int) -> Int { slot < earlierRuns.count ? earlierRuns[slot] : 0 }

    /// The rest of ``runNode(_:)``: the timeout, and what follows an error (`firstError`, thrown
    /// by the first run; `nil`: the first run has not happened yet).
    @inline(never)
    private func runNodeSlowly(
        _ slot: Int, node: ServiceGraph.Node, startedAt: Duration, firstError: (any Error)?
    ) async -> NodeResult {
        let earlier = earlierRuns(of: slot)
        var run = 1
        var pending = firstError
        while true {
            do {
                if let error = pending {
                    pending = nil
                    throw error
                }
                let context = ProviderContext(
                    build: self, node: node, slot: slot, run: run, runInGeneration: earlier + run)
                let box =
                    if node.timeout == nil { try await node.provider.make(context) } else {
                        try await invoke(node, context)
                    }
                return NodeResult(
                    slot: slot, status: .succeeded, box: box, failure: nil, runs: run, startedAt: startedAt,
                    endedAt: tracer.now)
            } catch {
                // Cancellation is never a failure (Coordinator rules); neither is an error thrown because of it.
                if error is CancellationError || Task.isCancelled {
                    return NodeResult(
                        slot: slot, status: .cancelledWhileRunning, box: nil, failure: nil, runs: run,
                        startedAt: startedAt, endedAt: tracer.now)
                }
                let kind = classify(error, node: node)
                if kind == .transient && run < node.retry.maxAttempts {
                    let delay = node.retry.delay(beforeRetry: run)
                    emit(.nodeRetrying(node: node.name, retry: run, delay: delay))
                    if delay > .zero { try? await Task.sleep(for: delay) }
                    if Task.isCancelled {
                        return NodeResult(
                            slot: slot, status: .cancelledWhileRunning, box: nil, failure: nil, runs: run,
                            startedAt: startedAt, endedAt: tracer.now)
                    }
                    run += 1
                    continue
                }
                let failure = NodeFailure(kind: kind, message: redactor.redact(String(describing: error)), error: error)
                return NodeResult(
                    slot: slot, status: .failed, box: nil, failure: failure, runs: run, startedAt: startedAt,
                    endedAt: tracer.now)
            }
        }
    }

    /// Calls the provider, racing it against the node's timeout when it has one.
    func invoke(_ node: ServiceGraph.Node, _ context: ProviderContext) async throws -> AnyServiceBox {
        guard let timeout = node.timeout else { return try await node.provider.make(context) }
        return try await withThrowingTaskGroup(of: AnyServiceBox?.self) { group in
            group.addTask { try await node.provider.make(context) }
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
                // value is committed and cancellation does not rewrite history (Coordinator rules); a late error
                // keeps its own classification and message. Only a provider that stops because of
                // the cancellation (CancellationError) timed out.
                do {
                    if case let box?? = try await group.next() { return box }
                } catch is CancellationError {
                    // It honoured the cancellation: the timeout (or the build's cancellation) decides.
                }
                if Task.isCancelled { throw CancellationError() }
                throw ServiceTimeoutError(service: node.name, timeout: timeout)
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// The error's own word, then the node's config, then its provider, then the container (``ErrorClassifier``).
    func classify(_ error: any Error, node: ServiceGraph.Node) -> FailureKind {
        if let classified = error as? any ClassifiedError { return classified.failureKind }
        if let configured = node.defaultFailure { return configured }
        if let byProvider = node.provider.classify(error) { return byProvider }
        return policy.classifier(error)
    }

    /// The event is only built when a sink listens: most containers run untraced.
    func emit(_ kind: @autoclosure () -> TraceEvent.Kind) {
        guard tracer.isEnabled else { return }
        tracer.emit(kind(), build: BuildAttempt(generation: generation, attempt: attempt), scope: scopeInstance)
    }
}
