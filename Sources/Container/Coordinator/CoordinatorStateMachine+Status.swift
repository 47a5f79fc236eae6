/// What the machine tells about itself: its status and the invariants it keeps.
extension CoordinatorStateMachine {
    // MARK: Status

    /// The machine's part of ``ContainerStatus``: the state as `start()` (the eager services)
    /// sees it.
    func status(openScopes: [String]) -> ContainerStatus {
        let state: ContainerStatus.State
        var lastFailure: ContainerError?
        var nextAttemptAt: Duration?
        let blocks = (0..<graph.builtCount).compactMap { self.state.block(of: $0) }
        switch phase {
        case .draining: state = .shuttingDown
        case .shutDown: state = .shutDown
        case .open:
            if build != nil {
                state = .running
            } else if eagerIsBuilt {
                state = .ready
            } else if blocks.contains(where: \.sticky) {
                state = .failed
                lastFailure = failure(of: graph.eagerRequired, report: lastReport ?? report(now: .zero))
            } else if let delayed = blocks.filter({ $0.allowedAt > (lastReport?.endedAt ?? .zero) }).max(by: {
                $0.allowedAt < $1.allowedAt
            }) {
                state = .waiting
                lastFailure = delayed.error
                nextAttemptAt = delayed.allowedAt
            } else {
                state = .idle
            }
        }
        if lastFailure == nil, let lastReport, !lastReport.succeeded, !lastReport.wasCancelled {
            lastFailure = .buildFailed(lastReport)
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
    func invariantViolations() -> [String] {
        var violations =
            demands.invariantViolations() + teardowns.invariantViolations() + state.invariantViolations()
            + children.invariantViolations()
        func require(_ condition: Bool, _ text: @autoclosure () -> String) {
            if !condition { violations.append(text()) }
        }
        require(!(stopping != nil && build?.isLaunched == true), "one build in flight at a time")
        require(demands.isEmpty || build != nil, "callers wait only for a build")
        if let build {
            require(build.build.generation == generation, "the build is of this generation")
            require(build.running >= 0 && build.unstarted >= 0, "the build's counts are not negative")
            // What a request's walk relies on to stop at a member (see `walk(_:)`).
            for member in build.members {
                for dependency in graph.dependencies[member]
                where dependency < graph.builtCount && !graph.nodes[dependency].isOptional {
                    require(
                        state.hasValue(dependency) || build.isMember(dependency),
                        "member \(member) needs \(dependency), which has no value and is not a member")
                }
            }
            if !build.isLaunched {
                require(stopping != nil || teardowns.hasWork, "a build waits to launch only behind a job")
            }
        }
        // And to stop at a node with a value.
        state.values.forEach { slot, _ in
            guard slot < graph.builtCount else { return }
            for dependency in graph.dependencies[slot]
            where dependency < graph.builtCount && !graph.nodes[dependency].isOptional {
                require(state.hasValue(dependency), "\(slot) has a value, \(dependency) which it needs has none")
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

    /// Debug builds: stops at the first event after which an invariant is broken.
    func _checkInvariants() {
        #if DEBUG
            let violations = invariantViolations()
            assert(violations.isEmpty, "coordinator invariants broken: \(violations)")
        #endif
    }
}
