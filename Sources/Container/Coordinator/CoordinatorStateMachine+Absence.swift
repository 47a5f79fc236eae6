/// Optional services in a build: what a node waits for when some dependencies are optional,
/// the members that can no longer be built once a node ended without a value, and what a
/// demand-driven build did not need (see the Demand-driven start-up article).
extension CoordinatorStateMachine {
    /// How many dependencies of `slot` it waits for: those without a value, but an optional one
    /// only while the build runs it (one that cannot be built is not waited for).
    func waitingCount(of slot: Int, in current: BuildState) -> Int {
        let dependencies = graph.dependencies[slot]
        guard graph.hasOptionalServices else { return dependencies.count { !state.hasValue($0) } }
        return dependencies.count { dependency in
            guard !state.hasValue(dependency) else { return false }
            guard graph.nodes[dependency].isOptional else { return true }
            // An app value being fetched arrives, or is settled absent, with the fetch.
            if dependency >= graph.builtCount { return state.absences[dependency] == nil }
            return current.isMember(dependency) && !current.isSettled(dependency)
        }
    }

    /// `slot` ended without a value: the optional members that can no longer be built because
    /// of it settle as skipped now (not at the build's end), and the members that waited only
    /// for such an optional dependency (or for `slot`, when it is optional) start without it.
    mutating func settleAbsence(
        from slot: Int, in current: inout BuildState, launching orders: inout WorkerOrders,
        completed: inout [Demands.Demand], now: Duration
    ) {
        let nodes = graph.nodes
        let root = nodes[slot].name
        var stack = [slot]
        var doomed = Set<Int>()
        while let absent = stack.popLast() {
            for dependent in graph.dependents[absent]
            where current.isMember(dependent) && current.records[dependent].status == .pending {
                if nodes[absent].isOptional {
                    // An optional edge: the dependent starts without the value.
                    if current.dependencyArrived(for: dependent) && !current.stopped {
                        orders.launches.append(launchOf(dependent, in: current))
                        current.unstarted -= 1
                        current.running += 1
                    }
                } else if doomed.insert(dependent).inserted {
                    if nodes[dependent].isOptional {
                        current.records[dependent].endedAt = now
                        current.records.skipped(dependent, because: [root])
                        record(.nodeSkipped(node: nodes[dependent].name, because: [root]), current.build)
                        completed += demands.settled(dependent, failed: true)
                        current.unstarted -= 1
                        state.noteAbsence(of: dependent, "\(nodes[dependent].name) skipped: \(root) failed")
                    }
                    stack.append(dependent)
                }
            }
        }
    }

    /// The slots `build` did not have as members and that have no value (what no request of a
    /// demand-driven build needed): `.none` when there are none (a build that made everything
    /// its generation lacked), else found from the slots with a value when the report is read.
    mutating func unbuilt(by build: BuildState) -> BuildReport.UnbuiltSlots {
        leavesSlotsOut(build) ? .outside(valued: state.valuedSlots()) : .none
    }

    /// ``unbuilt(by:)`` without keeping the slots with a value for the next report.
    func unbuiltNow(by build: BuildState) -> BuildReport.UnbuiltSlots {
        leavesSlotsOut(build) ? .outside(valued: state.valuedSlotsNow()) : .none
    }

    /// Whether some slot below the built count is neither a member of `build` nor has a value.
    private func leavesSlotsOut(_ build: BuildState) -> Bool {
        let built = graph.builtCount
        let lacking = build.members.count { $0 < built && !state.hasValue($0) }
        return lacking + state.ownCount != built
    }
}
