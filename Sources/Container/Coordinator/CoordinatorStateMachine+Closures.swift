/// What a request needs: the closure of its key, the part of it whose failure fails the
/// request, and what of it the build must still make (see the Demand-driven start-up article).
extension CoordinatorStateMachine {
    /// `key` with names made slots of the current graph.
    func resolved(_ key: Demands.Key) -> Demands.Key {
        guard case .names(let names, let found) = key else { return key }
        let layout = graph.layout
        if let roots = found?.roots(in: layout) { return .roots(roots) }
        return .roots(Demands.Lookup(layout: layout.id, slots: names.compactMap { layout.slots[$0] }).roots)
    }

    /// The slots `key` needs: its roots and everything they depend on.
    func closure(of key: Demands.Key) -> SlotSet {
        switch key {
        case .eager: return eagerClosure
        case .deferred: return graph.deferredSlots
        case .roots(let roots): return graph.closure(of: roots)
        case .names: return closure(of: resolved(key))
        }
    }

    /// The part of the closure of `key` whose failure fails the request (see
    /// ``ServiceGraph/required(from:)``).
    func required(of key: Demands.Key) -> SlotSet {
        switch key {
        case .eager: return graph.eagerRequired
        case .deferred: return graph.deferredRequired
        case .roots(let roots): return graph.required(from: roots)
        case .names: return required(of: resolved(key))
        }
    }

    /// What a request for `key` tries again of what failed outside its required part: the
    /// closure of the optional services it names (none for `start()` and `startDeferred()`).
    func retrying(for key: Demands.Key) -> SlotSet? {
        guard graph.hasOptionalServices, case .roots(let roots) = key else { return nil }
        let named = roots.filter { $0 < graph.builtCount && graph.nodes[$0].isOptional }
        return named.isEmpty ? nil : graph.closure(of: named)
    }

    /// What a closure needs now.
    enum ClosureNeed {
        /// Every node has a value.
        case built
        /// A node is blocked: sticky (`found` `.failed`) or until its next attempt (`.waiting`).
        case blocked(ContainerError, found: TraceEvent.CallerState)
        /// The build must make `missing` (in topological order); `unsettled` nodes are in the
        /// build in flight already, and `failed` tells whether a required one settled without a
        /// value. `absent`: nodes outside `required` that cannot be built now (blocked, settled
        /// without a value, or needing such a node), which the request does not wait for.
        case needed(missing: [Int], unsettled: [Int], failed: Bool, absent: [Int] = [])
    }

    /// What the closure of `key` needs, walking down from its roots only through the nodes the
    /// generation lacks: the walk stops at nodes with a value (their dependencies have values)
    /// and at members of the build (a member settles only after every node below it), so a
    /// request that joins a build looks at what it adds, not at what the build holds already.
    ///
    /// `nil` when the whole closure must be inspected: a request for `start()` (its closure is
    /// the graph's), a graph with optional services or app values (absences and fetches are
    /// decided over the whole closure), or a blocked node met (the first one in topological
    /// order answers the request).
    func walk(_ key: Demands.Key) -> ClosureNeed? {
        let graph = graph
        guard case .roots(let roots) = key, !graph.hasOptionalServices, graph.builtCount == graph.nodes.count
        else { return nil }
        if state.values.count == graph.nodes.count { return .built }
        // The build's records, read once: reading the build for each node copied it each time.
        let members = build?.records
        return Self.walk(from: roots, in: graph, state: state, members: members ?? .none, building: members != nil)
    }

    /// ``walk(_:)`` from `roots`, with the build's `members` (when `building`).
    private static func walk(
        from roots: [Int], in graph: ServiceGraph, state: borrowing GenerationState, members: borrowing BuildRecords,
        building: Bool
    ) -> ClosureNeed? {
        let dependencies = graph.dependencies.table
        var seen = SlotSet(capacity: graph.nodes.count)
        // Room for a typical walk at once, so that no array grows step by step.
        var stack: [Int] = []
        stack.reserveCapacity(roots.count + 32)
        stack += roots
        var missing: [Int] = []
        missing.reserveCapacity(16)
        var unsettled: [Int] = []
        var failed = false
        while let slot = stack.popLast() {
            guard seen.insert(slot), !state.hasValue(slot) else { continue }
            if building && members.isRecorded(slot) {
                if members.hasOutcome(slot) { failed = true } else { unsettled.append(slot) }
                continue
            }
            if state.block(of: slot) != nil { return nil }
            missing.append(slot)
            for index in Int(dependencies[slot])..<Int(dependencies[slot + 1])
            where !seen.contains(Int(dependencies[index])) {
                stack.append(Int(dependencies[index]))
            }
        }
        if missing.isEmpty && unsettled.isEmpty && !failed { return .built }
        graph.sortTopologically(&missing)
        return .needed(missing: missing, unsettled: unsettled, failed: failed)
    }

    /// What `closure` lacks: sticky failures first, then nodes waiting for their next attempt.
    /// Nodes outside `required` (under an optional service) never fail it.
    func inspect(_ closure: SlotSet, required: SlotSet, retrying: SlotSet? = nil, now: Duration) -> ClosureNeed {
        if state.values.count == graph.nodes.count { return .built }
        if graph.hasOptionalServices {
            let retrying = retrying ?? SlotSet(capacity: 0)
            return inspectWithOptionals(closure, required: required, retrying: retrying, now: now)
        }
        var missing: [Int] = []
        missing.reserveCapacity(min(closure.count, graph.nodes.count - state.values.count))
        var unsettled: [Int] = []
        var failed = false
        var waiting: ContainerError?
        for slot in graph.topologicallyOrdered(closure) where !state.hasValue(slot) {
            if slot >= graph.builtCount {
                // An app value of a scope instance: fetched by the build.
                missing.append(slot)
                continue
            }
            // `build?.` reads the build in place (`if let build` would copy it, and retain its arrays).
            if build?.isMember(slot) == true {
                if build?.isSettled(slot) == true { failed = true } else { unsettled.append(slot) }
                continue
            }
            if let block = state.block(of: slot) {
                if block.sticky { return .blocked(block.error, found: .failed) }
                if now < block.allowedAt {
                    waiting = waiting ?? block.error
                    continue
                }
            }
            missing.append(slot)
        }
        if let waiting { return .blocked(waiting, found: .waiting) }
        if missing.isEmpty && unsettled.isEmpty && !failed { return .built }
        return .needed(missing: missing, unsettled: unsettled, failed: failed)
    }

    /// ``inspect(_:required:now:)`` for a graph with optional services: a node outside
    /// `required` that cannot be built now is absent, and so is one that needs an absent node
    /// through a plain edge.
    ///
    /// A failed node outside `required` is tried again (once its next attempt is allowed) only in
    /// `retrying`: what the optional services the request names need. `start()` then never
    /// retries one, with or without a trace, as its answer from the published snapshot does not.
    private func inspectWithOptionals(
        _ closure: SlotSet, required: SlotSet, retrying: SlotSet, now: Duration
    ) -> ClosureNeed {
        var missing: [Int] = []
        var unsettled: [Int] = []
        var failed = false
        var waiting: ContainerError?
        var absent: [Int] = []
        var isAbsent = SlotSet(capacity: graph.nodes.count)
        for slot in graph.topologicallyOrdered(closure) where !state.hasValue(slot) {
            if slot >= graph.builtCount {
                // An optional app value the app could not build stays absent for this generation.
                if state.absences[slot] != nil {
                    isAbsent.insert(slot)
                    absent.append(slot)
                } else {
                    missing.append(slot)
                }
                continue
            }
            let isRequired = required.contains(slot)
            var cannotBuild = false
            if build?.isMember(slot) == true {
                // A member outside `required` that waits for an absent node through a plain edge
                // will never run (the build skips it when it ends): absent now.
                let doomed =
                    !isRequired
                    && graph.dependencies[slot].contains { dependency in
                        isAbsent.contains(dependency) && !graph.nodes[dependency].isOptional
                    }
                guard build?.isSettled(slot) == true || doomed else {
                    unsettled.append(slot)
                    continue
                }
                if isRequired { failed = true } else { cannotBuild = true }
            } else if let block = state.block(of: slot),
                block.sticky || now < block.allowedAt || !(isRequired || retrying.contains(slot))
            {
                if isRequired {
                    if block.sticky { return .blocked(block.error, found: .failed) }
                    waiting = waiting ?? block.error
                    continue
                }
                cannotBuild = true
            } else if !isRequired {
                cannotBuild = graph.dependencies[slot].contains { dependency in
                    isAbsent.contains(dependency) && !graph.nodes[dependency].isOptional
                }
            }
            if cannotBuild {
                isAbsent.insert(slot)
                absent.append(slot)
            } else if !(build?.isMember(slot) ?? false) {
                missing.append(slot)
            }
        }
        if let waiting { return .blocked(waiting, found: .waiting) }
        if missing.isEmpty && unsettled.isEmpty && !failed { return .built }
        return .needed(missing: missing, unsettled: unsettled, failed: failed, absent: absent)
    }

    /// The node whose provider makes a request for `key`, when the answer would wait for that
    /// node itself: a running member of the build in flight, in the request's closure.
    func waitedForBy(_ key: Demands.Key, from provider: RunningNode) -> ServiceGraph.Node? {
        guard let ticket = build?.ticket, provider.belongs(to: ticket), build?.isMember(provider.slot) == true,
            build?.isSettled(provider.slot) == false, closure(of: key).contains(provider.slot)
        else { return nil }
        return graph.nodes[provider.slot]
    }
}
