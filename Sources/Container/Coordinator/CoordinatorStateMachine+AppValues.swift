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
        switch result {
        case .success(let arrived):
            appGeneration = arrived.generation
            var completed: [Demands.Demand] = []
            var ready = current.ready
            current.ready = []
            for (slot, box) in arrived.values {
                // A value stored meanwhile (given with a request) leaves this one unused: it goes back.
                guard !state.hasValue(slot) else {
                    releasing.append(box)
                    continue
                }
                state.store(box, at: slot)
                current.ticket?.info.values.add(box, at: slot)
                completed += demands.settled(slot, failed: false)
                for dependent in graph.dependents[slot] where current.isMember(dependent) {
                    if current.dependencyArrived(for: dependent) { ready.append(dependent) }
                }
            }
            for (slot, reason) in arrived.absent where !state.hasValue(slot) {
                // Settled without a value; the members that read it start without it.
                state.noteAbsence(of: slot, reason)
                completed += demands.settled(slot, failed: true)
                for dependent in graph.dependents[slot] where current.isMember(dependent) {
                    if current.dependencyArrived(for: dependent) { ready.append(dependent) }
                }
            }
            var fetch: Fetch?
            if !current.toFetch.isEmpty, let ticket = current.ticket {
                current.awaitingApp = true
                fetch = Fetch(ticket: ticket, slots: current.toFetch, startsHere: false)
                current.toFetch = []
            }
            var launch: Launch?
            if let ticket = current.ticket, !current.stopped, !ready.isEmpty {
                launch = Launch(ticket: ticket, orders: orders(starting: ready, in: &current))
            }
            let isOver = current.isOver
            build = current
            let resume = completed.isEmpty ? [] : answer(completed, now: now)
            guard isOver else {
                return AppValuesAction(
                    launch: launch, fetch: fetch, resume: resume, release: [], then: nil)
            }
            let (more, lifecycle) = endBuild(answering: [], now: now)
            return AppValuesAction(
                launch: launch, fetch: fetch, resume: resume + more, release: [], then: lifecycle)
        case .failure(let error):
            // The app's build failed (or the app shut down): this build's callers get the app's
            // error, and the next request starts the next attempt.
            record(.buildFailed(failure: error.failure ?? .transient, roots: [], exhausted: false), current.build)
            let ended = demands.removeAll()
            attempt = current.build.attempt + 1
            let resume = resumptions(ended, .failure(error), result: .failure, build: current.build)
            guard current.running > 0 else {
                build = nil
                return AppValuesAction(
                    launch: nil, fetch: nil, resume: resume, release: [], then: continueLifecycle(now: now))
            }
            // Nodes that values fetched earlier unblocked still run: the build stops, its tasks
            // are cancelled, and it ends once they all returned (what they return goes to the
            // teardown); no teardown and no other build starts before (Coordinator rules 8).
            current.stopped = true
            current.ready = []
            current.toFetch = []
            current.supersededBy = .some(nil)
            stopping = current
            build = nil
            return AppValuesAction(
                launch: nil, fetch: nil, resume: resume, release: [], then: nil, cancel: current.ticket)
        }
    }
}
