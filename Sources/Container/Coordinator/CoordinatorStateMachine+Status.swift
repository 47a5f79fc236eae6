/// What the machine tells about itself: its status and the invariants it keeps.
extension CoordinatorStateMachine {
    // MARK: Status

    /// Whether the nodes that failed in `report` are all optional services: the build failed
    /// no request (its trace has no `build.failed`, the status no last failure).
    func failedOnlyOptional(_ report: BuildReport) -> Bool {
        guard graph.hasOptionalServices else { return false }
        let roots = report.failedNodes
        return !roots.isEmpty && roots.allSatisfy { graph.isOptional($0) == true }
    }

    /// The machine's part of ``ContainerStatus``: the state as `start()` (the eager services)
    /// sees it at `now`: a failure of a service `start()` does not need (a lazy one's) does not
    /// count, nor a wait whose time has come.
    func status(openScopes: [String], now: Duration) -> ContainerStatus {
        let state: ContainerStatus.State
        var lastFailure: ContainerError?
        var nextAttemptAt: Duration?
        switch phase {
        case .draining: state = .shuttingDown
        case .shutDown: state = .shutDown
        case .open:
            // Ready once a snapshot holds the eager services, also while a request builds lazy
            // ones. Values carried over by a reset are not enough: `start()` publishes them first.
            switch inspect(eagerClosure, required: graph.eagerRequired, now: now) {
            case .built where snapshot != nil: state = .ready
            case _ where build != nil: state = .running
            case .built: state = .idle
            case .blocked(let error, found: .failed):
                state = .failed
                lastFailure = error
            case .blocked(let error, found: _):
                state = .waiting
                lastFailure = error
                nextAttemptAt = graph.eagerRequired.slots.compactMap { self.state.block(of: $0)?.allowedAt }
                    .filter { $0 > now }.max()
            case .needed: state = .idle
            }
        }
        if lastFailure == nil, let lastReport, !lastReport.succeeded, !lastReport.wasCancelled,
            !failedOnlyOptional(lastReport)
        {
            lastFailure = buildFailed(lastReport)
        }
        return ContainerStatus(
            state: state, generation: generation, attempt: currentAttempt.attempt, lastBuild: lastReport,
            lastFailure: lastFailure, nextAttemptAt: nextAttemptAt, openScopes: openScopes,
            waitingCallers: demands.waitingCallers, unreportedTeardowns: teardowns.unreported,
            services: serviceStates(),
            inputsNotSupplied: graph.nodes.filter {
                $0.isInput && !tickets.inputs.isSupplied($0.name, type: $0.provider.valueTypeID)
            }.map(\.name))
    }

    /// Each app service's state, in declaration order.
    private func serviceStates() -> [ContainerStatus.Service] {
        let lastBuild = lastReport?.generation == generation ? lastReport : nil
        // The last build's word on the services it left without a value.
        var unbuilt: [String: ContainerStatus.Service.State] = [:]
        for node in lastBuild?.nodes ?? [] {
            switch node.outcome {
            case .failed: unbuilt[node.name] = .failed
            case .skipped, .cancelled: unbuilt[node.name] = .skipped
            case .succeeded, .reused: break
            }
        }
        return (0..<graph.builtCount).map { slot in
            let node = graph.nodes[slot]
            return ContainerStatus.Service(
                name: node.name, start: node.start, state: serviceState(slot) { unbuilt[node.name] })
        }
    }

    /// The state of the app service called `name`, or `nil` when the graph has none.
    func serviceState(named name: String) -> ContainerStatus.Service.State? {
        guard let slot = graph.layout.slots[name], slot < graph.builtCount else { return nil }
        let lastBuild = lastReport?.generation == generation ? lastReport : nil
        return serviceState(slot) {
            switch lastBuild?.outcome(of: name) {
            case .failed?: .failed
            case .skipped?, .cancelled?: .skipped
            default: nil
            }
        }
    }

    /// The state of `slot`; `lastOutcome` is the last build's word on it when it left it without a value.
    private func serviceState(_ slot: Int, lastOutcome: () -> ContainerStatus.Service.State?)
        -> ContainerStatus.Service.State
    {
        let node = graph.nodes[slot]
        if state.hasValue(slot) { return .built }
        if build?.isMember(slot) == true, build?.isSettled(slot) == false {
            let waits = node.isInput && !tickets.inputs.isSupplied(node.name, type: node.provider.valueTypeID)
            return waits ? .waitingForInput : .building
        }
        if let outcome = lastOutcome() { return outcome }
        return state.block(of: slot) != nil ? .failed : .notRequested
    }

    // MARK: Invariants

    /// Every broken invariant of the machine and its parts; empty when it is consistent.
    /// `walkingValues: false` leaves out the checks that visit every value and every member.
    func invariantViolations(walkingValues: Bool = true) -> [String] {
        var violations =
            demands.invariantViolations() + teardowns.invariantViolations() + children.invariantViolations()
        if walkingValues { violations += state.invariantViolations() + closureViolations() }
        func require(_ condition: Bool, _ text: @autoclosure () -> String) {
            if !condition { violations.append(text()) }
        }
        require(!(stopping != nil && build?.isLaunched == true), "one build in flight at a time")
        require(demands.isEmpty || build != nil, "callers wait only for a build")
        if let build {
            require(build.build.generation == generation, "the build is of this generation")
            require(build.running >= 0 && build.unstarted >= 0, "the build's counts are not negative")
            if !build.isLaunched {
                require(stopping != nil || teardowns.hasWork, "a build waits to launch only behind a job")
            }
        }
        if let published {
            require(published.generation == generation, "the published snapshot is of this generation")
        }
        if case .shutDown = phase {
            require(demands.isEmpty && build == nil, "nothing waits or builds after a shutdown")
            require(state.values.isEmpty, "no value lives after a shutdown")
        }
        return violations
    }

    /// The largest graph whose values and members a debug build checks after every event.
    static var walkedAfterEveryEvent: Int { 256 }

    /// What a request's walk relies on to stop at a member or at a node with a value (see
    /// `walk(_:)`): each dependency they need has a value, or (a member's) is a member too.
    /// A debug build runs it after events (see ``_checkInvariants()``) over every member and
    /// value, so it reads the graph's tables once instead of visiting (and copying) nodes.
    private func closureViolations() -> [String] {
        var violations: [String] = []
        let table = graph.dependencies.table
        let builtCount = graph.builtCount
        let isOptional = graph.hasOptionalServices ? graph.nodes.map(\.isOptional) : []
        let state = state
        func forEachNeeded(by slot: Int, _ body: (_ dependency: Int) -> Void) {
            for position in Int(table[slot])..<Int(table[slot + 1]) {
                let dependency = Int(table[position])
                if dependency < builtCount && (isOptional.isEmpty || !isOptional[dependency]) { body(dependency) }
            }
        }
        if let build {
            for member in build.members {
                forEachNeeded(by: member) { dependency in
                    if !state.hasValue(dependency) && !build.isMember(dependency) {
                        violations.append(
                            "member \(member) needs \(dependency), which has no value and is not a member")
                    }
                }
            }
        }
        state.values.forEachSlot { slot in
            guard slot < builtCount else { return }
            forEachNeeded(by: slot) { dependency in
                if !state.hasValue(dependency) {
                    violations.append("\(slot) has a value, \(dependency) which it needs has none")
                }
            }
        }
        return violations
    }

    /// Debug builds: stops at the first event after which an invariant is broken. The checks
    /// that visit every value and member run after every event of a graph of up to
    /// ``walkedAfterEveryEvent`` nodes; of a larger one, after the events that leave no node
    /// running (before its build launches, and once it ends). Every event of a 1,000-node build
    /// would otherwise cost a 1,000-node walk: seconds in a debug build, a minute on a busy host.
    func _checkInvariants() {
        #if DEBUG
            let walking = graph.nodes.count <= Self.walkedAfterEveryEvent || (build?.running ?? 0) == 0
            let violations = invariantViolations(walkingValues: walking)
            assert(violations.isEmpty, "coordinator invariants broken: \(violations)")
        #endif
    }
}
