/// The end of a build: members that never ran, the failed nodes' blocks, `build.failed`, and
/// the answers to the requests it settled.
extension CoordinatorStateMachine {
    /// The build in flight has nothing running and nothing it can start: its members that never
    /// ran end skipped (an upstream node failed) or cancelled before they started, the failed
    /// nodes are blocked (until their next allowed attempt, or for good), `build.failed` is
    /// traced, and every request it leaves settled is answered.
    mutating func endBuild(
        answering completed: [Demands.Demand], now: Duration
    ) -> (resume: [Resumption], then: Lifecycle) {
        guard var current = build.take() else { preconditionFailure("endBuild without a build") }
        var completed = completed
        // Topological order makes every upstream outcome final when a node's is decided. A
        // node's failed upstream: failed members, and the app's failed nodes behind app values
        // the build could not fetch (a scope instance's).
        var failedUpstream: [Int: (members: [Int], app: [String])] = [:]
        let rank = graph.topologicalRank
        let pending = current.unstarted > 0 ? current.members.filter { current.records[$0].status == .pending } : []
        for slot in pending.isEmpty ? [] : pending.sorted(by: { rank[$0] < rank[$1] }) {
            var roots = Set<Int>()
            var appRoots: [String] = []
            func addAppRoots(_ names: [String]) {
                for name in names where !appRoots.contains(name) { appRoots.append(name) }
            }
            for dependency in graph.dependencies[slot] where !graph.nodes[dependency].isOptional {
                guard current.isMember(dependency) else {
                    // An app value the build could not fetch fails its readers like a failed node.
                    if let fetch = current.failedFetch, fetch.slots.contains(dependency) {
                        addAppRoots(fetch.failedRoots(behind: graph.nodes[dependency].name))
                    }
                    continue
                }
                switch current.records[dependency].status {
                case .failed: roots.insert(dependency)
                case .skipped:
                    let upstream = failedUpstream[dependency]
                    roots.formUnion(upstream?.members ?? [])
                    addAppRoots(upstream?.app ?? [])
                default: break
                }
            }
            current.records[slot].endedAt = now
            let name = graph.nodes[slot].name
            if roots.isEmpty && appRoots.isEmpty {
                current.records[slot].status = .cancelledBeforeStart
                record(.nodeCancelled(node: name, phase: .beforeStart), current.build)
            } else {
                let sorted = roots.sorted()
                failedUpstream[slot] = (sorted, appRoots)
                let because = sorted.map { graph.nodes[$0].name } + appRoots
                for root in appRoots where current.failedFetch?.namedRoots.contains(root) == false {
                    current.failedFetch?.namedRoots.append(root)
                }
                current.records.skipped(slot, because: because)
                record(.nodeSkipped(node: name, because: because), current.build)
                if graph.hasOptionalServices && graph.nodes[slot].isOptional {
                    state.noteAbsence(of: slot, "\(name) skipped: \(because.joined(separator: ", ")) failed")
                }
            }
            completed += demands.settled(slot, failed: true)
        }
        let report = BuildReport(
            generation: generation, attempt: current.build.attempt, records: current.records,
            names: graph.serviceNames, nameCount: graph.builtCount, built: current.members,
            unbuilt: unbuilt(by: current),
            startedAt: current.launchedAt ?? now, endedAt: now, wasCancelled: false)
        lastReport = report
        build = nil
        let wasSticky = eagerIsSticky
        let exhausted = blockFailed(current, report: report, now: now)
        if !wasSticky && eagerIsSticky && published == nil
            && (completed + demands.demands).allSatisfy({ $0.key == .eager })
        {
            // `start()` can never succeed in this generation and nothing else asked for or holds
            // a value: what it built goes now (nobody's report owns it; the next operation's
            // lists it). A request that needs only what succeeded keeps it instead.
            teardowns.enqueue(state.retireBuiltInThisGeneration(), owner: nil)
        }
        attempt = eagerIsBuilt || eagerIsSticky ? current.build.attempt : current.build.attempt + 1
        if case .draining(let shutdown) = phase {
            // A graceful shutdown let the build finish: its callers get its outcome (a snapshot
            // is published as any other, `snapshot.published` before the callers it answers),
            // then it all goes.
            let completed = completed + demands.removeAll()
            let succeeded = completed.contains { !$0.failed }
            recordFailure(of: current, report: report, exhausted: exhausted, publishing: succeeded)
            let resume = answer(completed, now: now, of: current.build, failedFetch: current.failedFetch)
            let supersession = shutDown(operation: shutdown, error: .shutDown(generation: generation))
            return (resume + supersession.resume, drainEnded(now: now))
        }
        // The snapshots first, then `build.failed`, then the failures: the build's last
        // publication comes before the event that ends it.
        let succeeded = completed.filter { !$0.failed }
        var resume = answer(succeeded, now: now, of: current.build, failedFetch: current.failedFetch)
        recordFailure(of: current, report: report, exhausted: exhausted, publishing: !succeeded.isEmpty)
        if succeeded.count < completed.count {
            resume += answer(
                completed.filter(\.failed), now: now, of: current.build, failedFetch: current.failedFetch)
        }
        return (resume, continueLifecycle(now: now))
    }

    /// `build.failed` for `ended`, when a node failed and that failure failed a request, or the
    /// build published nothing (`publishing`: its end publishes): a build whose failures only
    /// optional services needed published, and failed no request.
    /// A scope instance's build that could not fetch app values failed as the app did: its
    /// roots include the app's failed nodes its members were skipped for.
    private mutating func recordFailure(of ended: BuildState, report: BuildReport, exhausted: Bool, publishing: Bool) {
        guard var failure = requestFailure(of: report), !failedOnlyOptional(report) else { return }
        let publishedBefore = published.map { $0.generation == generation && $0.report.attempt == ended.build.attempt }
        guard ended.failedARequest || !(publishing || publishedBefore == true) else { return }
        var roots = report.failedNodes
        if let fetch = ended.failedFetch {
            if fetch.error.failure == .permanent { failure = .permanent }
            roots += fetch.namedRoots.filter { !roots.contains($0) }
        }
        record(.buildFailed(failure: failure, roots: roots, exhausted: exhausted), ended.build)
    }

    /// Blocks every member left without a value that was not cancelled: for good when its
    /// attempts are used up (or it failed permanently), otherwise until its next attempt is allowed. Returns whether the
    /// build used a node's last allowed attempt.
    private mutating func blockFailed(_ ended: BuildState, report: BuildReport, now: Duration) -> Bool {
        var exhausted = false
        var failedErrors: [FailureKind: ContainerError] = [:]
        var exhaustedError: ContainerError?
        // When every build is for the eager services, the budget counts builds: every member a
        // failed build left without a value (skipped, or cancelled by fail-fast) used its attempt.
        let buildFailure = requestFailure(of: report)
        let countsEveryMember = graph.buildsAreForEagerServices && buildFailure == .transient
        for slot in ended.members where !state.hasValue(slot) {
            // Otherwise the budget counts each service's failed runs: a member cancelled (by
            // fail-fast, or because its callers left) or skipped did not fail, and one skipped in
            // a build that could not fetch app values waits for the app (whose failure is
            // counted there).
            let status = ended.records[slot].status
            if status == .skipped && ended.failedFetch != nil { continue }
            let isOptional = graph.hasOptionalServices && graph.nodes[slot].isOptional
            let counted = status == .failed || countsEveryMember
            guard counted || (isOptional && status == .skipped) else { continue }
            if counted { state.countAttempt(of: slot) }
            let attempts = state.attempts(of: slot)
            var permanent = false
            if ended.records[slot].status == .failed,
                case .failed(let failure)? = report.outcome(of: graph.nodes[slot].name)
            {
                permanent = failure.kind == .permanent
            }
            if counted, !permanent, let maxAttempts = policy.maxAttempts, attempts >= maxAttempts {
                exhausted = true
                let error =
                    exhaustedError ?? .attemptsExhausted(report, maxAttempts: maxAttempts, advice: failureAdvice)
                exhaustedError = error
                state.block(slot, .init(error: error, sticky: true, allowedAt: .zero))
                continue
            }
            guard status == .failed || (isOptional && status == .skipped) else { continue }
            // A caller meets the failure as the node it needs classifies it.
            let kind: FailureKind = permanent ? .permanent : .transient
            let error = failedErrors[kind] ?? buildFailed(report, kind: kind)
            failedErrors[kind] = error
            let delay = policy.retryAfter.delay(beforeRetry: max(attempts, 1))
            state.block(slot, .init(error: error, sticky: permanent, allowedAt: now + delay))
        }
        // A build that failed permanently used no attempt budget: its failure is its own.
        if buildFailure == .permanent { return false }
        return exhausted
    }

    /// Whether the eager services can never be built in this generation (a sticky block of a
    /// node whose failure fails `start()`).
    var eagerIsSticky: Bool {
        let eager = graph.eagerRequired
        return state.blocks.contains { slot, block in block.sticky && slot < graph.builtCount && eager.contains(slot) }
    }
}
