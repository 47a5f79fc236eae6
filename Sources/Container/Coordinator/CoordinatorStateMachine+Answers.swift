/// The answers of a build's requests: the snapshot or the failure each settled closure gets,
/// and the resumption of its callers.
extension CoordinatorStateMachine {
    /// The answers of demands whose closures settled: the snapshot (published first) when every
    /// node has a value, the failure otherwise.
    /// `failedFetch`: the app values the ended build could not fetch (the build in flight's
    /// when `nil`); a request that needs one of them gets the app's error.
    mutating func answer(
        _ completed: [Demands.Demand], now: Duration, of ended: BuildAttempt? = nil,
        failedFetch: BuildState.FailedFetch? = nil
    ) -> [Resumption] {
        let failedFetch = failedFetch ?? build?.failedFetch
        var resume: [Resumption] = []
        resume.reserveCapacity(completed.count)
        for demand in completed {
            let build = ended ?? currentAttempt
            // A closure that settled without a failure has every value.
            if !demand.failed {
                let snapshot = publishedHolding(build: ended, now: now)
                resume.append(resumption(demand, .snapshot(snapshot), result: .snapshot, build: build))
            } else {
                let required = requiredSlots(of: demand)
                // An app value the build could not fetch: the app's own error says why.
                var error =
                    if let failedFetch, failedFetch.slots.contains(where: required.contains) {
                        failedFetch.error
                    } else {
                        failure(of: required, report: lastReport ?? report(now: now))
                    }
                // Draining, an input never supplied failed because the shutdown ended its wait.
                if case .draining = phase, needsUnsuppliedInput(required) {
                    error = .shutDown(generation: generation)
                }
                resume.append(resumption(demand, .failure(error), result: .failure, build: build))
            }
        }
        return resume
    }

    /// The part of `demand`'s closure whose failure fails it (made from its key when the graph
    /// has no optional services: only a failed demand needs it).
    func requiredSlots(of demand: Demands.Demand) -> SlotSet { demand.required ?? required(of: demand.key) }

    /// The error of a request whose required nodes include one without a value: a permanent
    /// failure before used-up attempts before a transient failure.
    func failure(of required: SlotSet, report: BuildReport) -> ContainerError {
        var chosen: (rank: Int, error: ContainerError)?
        for slot in required.slots {
            guard let block = state.block(of: slot) else { continue }
            let rank =
                block.error.code == .attemptsExhausted ? 1 : block.sticky ? 2 : 0
            if rank > (chosen?.rank ?? -1) { chosen = (rank, block.error) }
        }
        if let chosen { return chosen.error }
        // None blocked yet (an early answer, before the build's end blocks its failed nodes), or
        // its nodes were cancelled by fail-fast: as the build's end will block the nodes it needs
        // that failed (permanent first, then a last allowed attempt used up).
        var exhausted = false
        for name in report.failedNodes {
            guard let slot = graph.layout.slots[name], required.contains(slot),
                case .failed(let failure)? = report.outcome(of: name)
            else { continue }
            if failure.kind == .permanent { return buildFailed(report, kind: .permanent) }
            if let maxAttempts = policy.maxAttempts, state.attempts(of: slot) + 1 >= maxAttempts { exhausted = true }
        }
        if exhausted, let maxAttempts = policy.maxAttempts {
            return .attemptsExhausted(report, maxAttempts: maxAttempts, advice: failureAdvice)
        }
        return buildFailed(report, kind: .transient)
    }

    /// The error of a failed build, its optional services' failures marked as failing no request.
    /// `kind`: how it classifies for the callers that get it (by default, as the build's
    /// failure of the services requests need does: see ``requestFailure(of:)``).
    func buildFailed(_ report: BuildReport, kind: FailureKind? = nil) -> ContainerError {
        let kind = kind ?? requestFailure(of: report)
        guard graph.hasOptionalServices else { return .buildFailed(report, kind: kind, advice: failureAdvice) }
        return .buildFailed(report, kind: kind, advice: failureAdvice) { [graph] name in graph.isOptional(name) == true
        }
    }

    /// The build's failure as its requests meet it: permanent when a service that is not optional
    /// failed permanently (an optional one's failure fails no request), else transient; `nil`
    /// when nothing failed.
    func requestFailure(of report: BuildReport) -> FailureKind? {
        guard graph.hasOptionalServices, report.failure == .permanent else { return report.failure }
        let permanent = report.failedNodes.contains { name in
            guard graph.isOptional(name) != true, case .failed(let failure)? = report.outcome(of: name) else {
                return false
            }
            return failure.kind == .permanent
        }
        return permanent ? .permanent : .transient
    }

    /// Who meets a failure of this coordinator's build again.
    var failureAdvice: ContainerError.Advice {
        scopeInstance != nil ? .instance : declared.declaresStartPolicies ? .requestsNeedingIt : .everyStart
    }

    /// Whether `required` holds an input without a value of its type.
    private func needsUnsuppliedInput(_ required: SlotSet) -> Bool {
        required.slots.contains { slot in
            slot < graph.builtCount && graph.nodes[slot].isInput && !state.hasValue(slot)
                && !tickets.inputs.isSupplied(graph.nodes[slot].name, type: graph.nodes[slot].provider.valueTypeID)
        }
    }

    /// The report of the build in flight so far (or of the last one).
    func report(now: Duration) -> BuildReport {
        guard let current = build else {
            return lastReport
                ?? BuildReport(
                    generation: generation, attempt: attempt, nodes: [], startedAt: now, endedAt: now,
                    wasCancelled: false)
        }
        return BuildReport(
            generation: generation, attempt: current.build.attempt, records: current.records,
            names: graph.serviceNames, nameCount: graph.builtCount, failure: current.records.settledFailure,
            unbuilt: unbuiltNow(by: current), startedAt: current.launchedAt ?? now, endedAt: now, wasCancelled: false)
    }

    /// The report of the build in flight so far, for the snapshot published now with the
    /// generation's values: the slots it leaves out are found in those values when read, and
    /// its records are those settled so far, shared with the build (see ``SettledLog``), not
    /// copied for every snapshot a growing build publishes.
    mutating func publishedReport(now: Duration) -> BuildReport? {
        guard build != nil else { return nil }
        let settled = build!.records.settledView(valued: state.valuedSlots())
        return BuildReport(
            generation: generation, attempt: build!.build.attempt, settled: settled, names: graph.serviceNames,
            nameCount: graph.builtCount, failure: build!.records.settledFailure, startedAt: build!.launchedAt ?? now,
            endedAt: now)
    }

    /// The waiters of `ended`, to resume with `outcome`, each traced as resumed with `result`.
    mutating func resumptions(
        _ ended: [Demands.Demand], _ outcome: CallerOutcome, result: TraceEvent.CallerResult, build: BuildAttempt
    ) -> [Resumption] {
        ended.map { resumption($0, outcome, result: result, build: build) }
    }

    /// The waiters of `demand`, to resume with `outcome`, each traced as resumed with `result`.
    mutating func resumption(
        _ demand: Demands.Demand, _ outcome: CallerOutcome, result: TraceEvent.CallerResult, build: BuildAttempt
    ) -> Resumption {
        var callers = demand.callers
        let (waiters, labels) = callers.removeAll(named: trace.isEnabled)
        for label in labels { record(.callerResumed(caller: label, result: result), build) }
        return Resumption(waiters: waiters, outcome: outcome)
    }
}
