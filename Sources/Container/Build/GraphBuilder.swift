/// Builds one attempt of one generation: starts each node as soon as all its dependencies
/// have values, in a task group, and gives every node exactly one outcome (DESIGN §3).
///
/// Values are assembled locally and handed back in a ``BuildResult``; the builder never
/// publishes anything. Nodes whose values were kept from an earlier attempt or generation
/// are reused, not rebuilt.
///
/// A class: every node's child task captures the builder, and capturing one reference costs
/// one retain where a struct would copy (and retain) each of its fields into every task.
final class GraphBuilder: Sendable {
    let graph: ServiceGraph
    let generation: Int
    let attempt: Int
    /// Values kept from earlier attempts or generations, by slot.
    let kept: [Int: AnyServiceBox]
    /// Provider runs of earlier attempts of this generation, by slot.
    let earlierRuns: [Int: Int]
    let policy: BuildPolicy
    let tracer: Tracer
    let redactor: Redactor
    /// A scope part's external values: the app services it uses, from the app snapshot, by slot.
    let external: [Int: AnyServiceBox]
    /// The scope instance being built (`nil`: the app), for the trace and the providers.
    let scopeInstance: String?
    let parameters: ScopeParameters
    /// The app generation `external` comes from.
    let appGeneration: Int?

    init(
        graph: ServiceGraph, generation: Int, attempt: Int, kept: [Int: AnyServiceBox],
        earlierRuns: [Int: Int] = [:], policy: BuildPolicy, tracer: Tracer, redactor: Redactor,
        external: [Int: AnyServiceBox] = [:], scopeInstance: String? = nil, parameters: ScopeParameters = .init(),
        appGeneration: Int? = nil
    ) {
        self.appGeneration = appGeneration
        self.external = external
        self.scopeInstance = scopeInstance
        self.parameters = parameters
        self.earlierRuns = earlierRuns
        self.graph = graph
        self.generation = generation
        self.attempt = attempt
        self.kept = kept
        self.policy = policy
        self.tracer = tracer
        self.redactor = redactor
    }

    /// What one node's run produced.
    struct NodeResult: Sendable {
        let slot: Int
        let outcome: NodeOutcome
        let box: AnyServiceBox?
        let runs: Int
    }

    func run() async -> BuildResult {
        let count = graph.nodes.count
        // `build.started` was stamped by the coordinator when it launched this build.
        let startedAt = tracer.now

        var values = [AnyServiceBox?](repeating: nil, count: count)
        var outcomes = [NodeOutcome?](repeating: nil, count: count)
        var runs = [Int](repeating: 0, count: count)
        var nodeStart = [Duration?](repeating: nil, count: count)
        var nodeEnd = [Duration?](repeating: nil, count: count)
        var built: [Int: AnyServiceBox] = [:]
        built.reserveCapacity(count - kept.count)
        // The app services a scope uses: present from the start, never built, kept or traced here.
        for (slot, box) in external {
            values[slot] = box
            outcomes[slot] = .reused
        }
        // In graph order, so traces of the same graph read the same way every time.
        for slot in graph.topologicalOrder {
            guard let box = kept[slot] else { continue }
            values[slot] = box
            outcomes[slot] = .reused
            emit(.nodeReused(node: graph.nodes[slot].name))
        }
        // Dependencies still without a value, per node.
        var waitingOn = graph.nodes.map { node in node.dependencies.count { values[$0] == nil } }

        await withTaskGroup(of: NodeResult.self) { group in
            var stopped = false
            func launch(_ slot: Int) {
                let node = graph.nodes[slot]
                // The values in the order of `node.dependencyNames`: one array, and no visit to
                // each dependency's node (a cache miss per edge in a large graph).
                let dependencies = node.dependencies.map { values[$0] }
                nodeStart[slot] = tracer.now
                emit(.nodeStarted(node: node.name))
                group.addTask { await self.runNode(slot, node: node, dependencies: dependencies) }
            }

            for slot in graph.topologicalOrder where outcomes[slot] == nil && waitingOn[slot] == 0 { launch(slot) }

            while let result = await group.next() {
                let slot = result.slot
                // Read only for a trace event: untraced, the node (a cache miss in a large
                // graph) is not visited again.
                var name: String { graph.nodes[slot].name }
                outcomes[slot] = result.outcome
                runs[slot] = result.runs
                nodeEnd[slot] = tracer.now
                switch result.outcome {
                case .succeeded(let duration):
                    emit(.nodeSucceeded(node: name, duration: duration))
                    values[slot] = result.box
                    built[slot] = result.box
                    // A dependent whose last missing dependency this was can start now,
                    // unless the build is winding down (reset, or fail-fast after a failure).
                    stopped = stopped || Task.isCancelled
                    for dependent in graph.dependents[slot] {
                        waitingOn[dependent] -= 1
                        if waitingOn[dependent] == 0 && !stopped { launch(dependent) }
                    }
                case .failed(let failure):
                    emit(.nodeFailed(node: name, failure: failure.kind, error: failure.message))
                    if policy.failureMode == .failFast && !stopped {
                        stopped = true
                        group.cancelAll()
                    }
                case .cancelled(let phase):
                    emit(.nodeCancelled(node: name, phase: phase))
                case .reused, .skipped:
                    preconditionFailure("a node run cannot end \(result.outcome)")
                }
            }
        }

        // Nodes that never ran: skipped when an upstream node failed, otherwise cancelled
        // before they started. Topological order makes every upstream outcome final here.
        var failedUpstream = [[Int]](repeating: [], count: count)
        for slot in graph.topologicalOrder where outcomes[slot] == nil {
            var roots = Set<Int>()
            for dependency in graph.nodes[slot].dependencies {
                switch outcomes[dependency] {
                case .failed?: roots.insert(dependency)
                case .skipped?: roots.formUnion(failedUpstream[dependency])
                default: break
                }
            }
            let name = graph.nodes[slot].name
            nodeEnd[slot] = tracer.now
            if roots.isEmpty {
                outcomes[slot] = .cancelled(.beforeStart)
                emit(.nodeCancelled(node: name, phase: .beforeStart))
            } else {
                failedUpstream[slot] = roots.sorted()
                let because = failedUpstream[slot].map { graph.nodes[$0].name }
                outcomes[slot] = .skipped(because: because)
                emit(.nodeSkipped(node: name, because: because))
            }
        }

        let report = BuildReport(
            generation: generation, attempt: attempt,
            nodes: (0..<graph.builtCount).map { slot in
                BuildReport.NodeReport(
                    name: graph.nodes[slot].name, outcome: outcomes[slot]!, runs: runs[slot],
                    startedAt: nodeStart[slot], endedAt: nodeEnd[slot])
            },
            startedAt: startedAt, endedAt: tracer.now, wasCancelled: Task.isCancelled)
        return BuildResult(report: report, built: built, values: values, appGeneration: appGeneration)
    }

    /// Runs one node's provider, with its timeout and its retries of transient errors.
    private func runNode(_ slot: Int, node: ServiceGraph.Node, dependencies: [AnyServiceBox?]) async -> NodeResult {
        let clock = ContinuousClock()
        let start = clock.now
        var run = 1
        while true {
            let context = ProviderContext(
                serviceName: node.name, slot: slot, options: node.options, generation: generation, attempt: attempt,
                run: run,
                runInGeneration: (earlierRuns[slot] ?? 0) + run, dependencies: dependencies,
                declared: node.dependencyNames, redactor: redactor, scopeInstance: scopeInstance,
                parameters: parameters, groups: node.groups)
            do {
                // Without a timeout the provider is called directly: one async frame less per node.
                let box =
                    if node.timeout == nil { try await node.provider.make(context) } else {
                        try await invoke(node, context)
                    }
                return NodeResult(slot: slot, outcome: .succeeded(duration: clock.now - start), box: box, runs: run)
            } catch {
                // Cancellation is never a failure (§3.5); neither is an error thrown because of it.
                if error is CancellationError || Task.isCancelled {
                    return NodeResult(slot: slot, outcome: .cancelled(.whileRunning), box: nil, runs: run)
                }
                let kind = classify(error, node: node)
                if kind == .transient && run < node.retry.maxAttempts {
                    let delay = node.retry.delay(beforeRetry: run)
                    emit(.nodeRetrying(node: node.name, retry: run, delay: delay))
                    if delay > .zero { try? await Task.sleep(for: delay) }
                    if Task.isCancelled {
                        return NodeResult(slot: slot, outcome: .cancelled(.whileRunning), box: nil, runs: run)
                    }
                    run += 1
                    continue
                }
                let failure = NodeFailure(kind: kind, message: redactor.redact(String(describing: error)), error: error)
                return NodeResult(slot: slot, outcome: .failed(failure), box: nil, runs: run)
            }
        }
    }

    /// Calls the provider, racing it against the node's timeout when it has one.
    private func invoke(_ node: ServiceGraph.Node, _ context: ProviderContext) async throws -> AnyServiceBox {
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
                // value is committed and cancellation does not rewrite history (§3.8); a late error
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

    /// The error's own word, then the node's config, then its provider, then the container (§3.5).
    private func classify(_ error: any Error, node: ServiceGraph.Node) -> FailureKind {
        if let classified = error as? any ClassifiedError { return classified.failureKind }
        if let configured = node.defaultFailure { return configured }
        if let byProvider = node.provider.classify(error) { return byProvider }
        return policy.classifier(error)
    }

    /// The event is only built when a sink listens: most containers run untraced.
    private func emit(_ kind: @autoclosure () -> TraceEvent.Kind) {
        guard tracer.isEnabled else { return }
        tracer.emit(kind(), build: BuildAttempt(generation: generation, attempt: attempt), scope: scopeInstance)
    }
}

/// What a build attempt hands back to the coordinator.
struct BuildResult: Sendable {
    /// How every node ended.
    let report: BuildReport
    /// Values this attempt made (not the reused ones), by slot: they must be kept or torn down.
    let built: [Int: AnyServiceBox]
    /// Every node's value, by slot (`nil` where the node has none).
    let values: [AnyServiceBox?]
    /// For a scope instance: the app generation whose values it used.
    var appGeneration: Int? = nil
}
