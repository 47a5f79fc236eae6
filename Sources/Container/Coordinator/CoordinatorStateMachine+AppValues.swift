/// The app values a scope instance's build fetches: what their arrival (or the app's failure)
/// starts and answers.
extension CoordinatorStateMachine {
    /// The app values build `id` fetched arrived (leased already), or the app's failure.
    mutating func appValuesArrived(
        build id: Int, _ result: Result<AppValues, ContainerError>,
        now: Duration
    ) -> AppValuesAction {
        guard build?.id == id, var current = build.take() else {
            // Superseded (or closed) meanwhile: nothing uses the values; they go back at once.
            let unused = (try? result.get().values.map(\.box)) ?? []
            var lifecycle: Lifecycle?
            if var old = stopping, old.id == id {
                old.awaitingApp = false
                stopping = old
                if old.running == 0 { lifecycle = endStopping(now: now) }
            }
            return AppValuesAction(launch: nil, fetch: nil, resume: [], release: unused, then: lifecycle)
        }
        current.awaitingApp = false
        let fetched = current.fetching
        current.fetching = []
        var completed: [Demands.Demand] = []
        var ready = current.ready
        current.ready = []
        /// `slot` settled (with a value or without): the demands it completes, the members it frees.
        func settled(_ slot: Int, failed: Bool) {
            completed += demands.settled(slot, failed: failed)
            for dependent in graph.dependents[slot] where current.isMember(dependent) {
                if current.dependencyArrived(for: dependent) { ready.append(dependent) }
            }
        }
        switch result {
        case .success(let arrived):
            appGeneration = arrived.generation
            for (slot, box) in arrived.values {
                // A value stored meanwhile (given with a request) leaves this one unused: it goes back.
                guard !state.hasValue(slot) else {
                    releasing.append(box)
                    continue
                }
                state.store(box, at: slot)
                current.ticket?.info.values.add(box, at: slot)
                settled(slot, failed: false)
            }
            for (slot, reason) in arrived.absent where !state.hasValue(slot) {
                // Settled without a value; the members that read it start without it.
                state.noteAbsence(of: slot, reason)
                settled(slot, failed: true)
            }
        case .failure(let error):
            // The app could not give them (its build failed, or it shut down): they settle like
            // failed nodes. The requests that need one get the app's error, the members that read
            // one end skipped, and the rest of the build goes on (what succeeded stays built).
            let failed = fetched.filter { !state.hasValue($0) }
            var failedFetch = current.failedFetch ?? BuildState.FailedFetch(slots: [], error: error)
            failedFetch.slots.formUnion(failed)
            failedFetch.error = error
            current.failedFetch = failedFetch
            // Their members wait for no value now: those that read one never start.
            if demands.demands.contains(where: { demand in failed.contains(where: requiredSlots(of: demand).contains) })
            {
                current.failedARequest = true
            }
            for slot in failed { completed += demands.settled(slot, failed: true) }
        }
        var fetch: Fetch?
        if !current.toFetch.isEmpty, let ticket = current.ticket {
            fetch = Fetch(ticket: ticket, slots: current.beginFetch(), startsHere: false)
        }
        var launch: Launch?
        if let ticket = current.ticket, !current.stopped, !ready.isEmpty {
            launch = Launch(ticket: ticket, orders: orders(starting: ready, in: &current))
        }
        let isOver = current.isOver
        build = current
        let resume = completed.isEmpty ? [] : answer(completed, now: now)
        guard isOver else {
            return AppValuesAction(launch: launch, fetch: fetch, resume: resume, release: [], then: nil)
        }
        let (more, lifecycle) = endBuild(answering: [], now: now)
        return AppValuesAction(launch: launch, fetch: fetch, resume: resume + more, release: [], then: lifecycle)
    }
}
