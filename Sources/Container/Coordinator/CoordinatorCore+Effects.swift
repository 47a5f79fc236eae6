/// How a coordinator carries out its state machine's actions, after unlocking: resumptions,
/// the build's tasks, teardown jobs, app values a scope instance fetches, orders to scope
/// instances.
extension CoordinatorCore {
    // MARK: Callers

    /// Resumes a caller's continuation with `outcome` (the only way a `Waiter` is resumed).
    func resume(_ waiter: Waiter, with outcome: Machine.CallerOutcome) {
        handingOverToCaller()
        switch waiter {
        case .task(let continuation):
            switch outcome {
            case .snapshot(let snapshot): continuation.resume(returning: snapshot)
            case .failure(let error): continuation.resume(throwing: error)
            case .cancelled: continuation.resume(throwing: CancellationError())
            }
        case .thread(let caller): caller.answer(outcome)
        }
    }

    func resume(_ resumptions: [Machine.Resumption]) {
        for resumption in resumptions {
            for waiter in resumption.waiters { resume(waiter, with: resumption.outcome) }
        }
    }

    // MARK: Builds

    /// Starts what a request, a launch or a fetch's end started.
    func perform(_ start: Machine.Start) {
        if let launch = start.launch { spawnWorker(launch) }
        if let fetch = start.fetch { spawnFetch(fetch) }
    }

    /// A new task of the build running `launch`'s nodes and those they unblock, at the highest
    /// priority among them (the others go to workers of their own, see ``BuildWorker``).
    func spawnWorker(_ launch: Machine.Launch) {
        guard !launch.orders.launches.isEmpty else { return }
        let ticket = launch.ticket
        var orders = launch.orders
        // Main-actor nodes go to the main actor at once: a worker would only hand them on.
        if ticket.mainLane != nil { orders = BuildWorker.handOffMainActorNodes(orders, of: ticket, reporter: self) }
        guard !orders.launches.isEmpty else { return }
        let priority = orders.priority(atLeast: 0)
        ticket.spawn(priority: priority == 0 ? nil : priority, startingHere: launch.startsHere) { [self] in
            await work(orders, of: ticket, at: priority == 0 ? ticket.priority : priority)
        }
    }

    /// Runs `orders` in the calling task, which runs at `priority` (see ``BuildWorker``), each
    /// result a transition.
    func work(_ orders: WorkerOrders, of ticket: BuildTicket, at priority: UInt8) async {
        guard !orders.launches.isEmpty else { return }
        await BuildWorker.run(orders, of: ticket, at: priority, reporter: self)
    }

    /// Cancels the tasks of `ticket`'s build, and ends its main-actor nodes still waiting for the
    /// main actor now, cancelled before they started: a reset or shutdown never waits for a
    /// busy main thread (see <doc:LaunchTiers>).
    func cancel(_ ticket: BuildTicket?) {
        guard let ticket else { return }
        ticket.cancel()
        guard let lane = ticket.mainLane else { return }
        for launch in lane.takeWaiting() {
            var next = WorkerOrders(launches: [], unstarted: 0)
            nodeFinished(.cancelledBeforeStart(launch.slot, at: ticket.tracer.now), of: ticket, into: &next)
            // A cancelled build starts nothing more; whatever it hands on still goes to a worker.
            spawnWorker(Machine.Launch(ticket: ticket, orders: next))
        }
    }

    /// A node of `ticket`'s build ended: the transition, then what it asks; `next` gets what the
    /// node's worker starts next.
    func nodeFinished(_ result: NodeResult, of ticket: BuildTicket, into next: inout WorkerOrders) {
        var action = transition { machine, now in
            machine.nodeFinished(build: ticket.id, result, launching: &next, now: now)
        }
        if !action.resume.isEmpty { resume(action.resume) }
        cancel(action.cancel)
        if let lifecycle = action.then.take() { perform(lifecycle) }
    }

    // MARK: App values (a scope instance)

    /// A new task of the build fetching (and leasing) the app values of `fetch`, then running the
    /// nodes they unblock.
    func spawnFetch(_ fetch: Machine.Fetch) {
        let ticket = fetch.ticket
        let slots = fetch.slots
        let priority = ticket.priority
        ticket.spawn(priority: priority, startingHere: fetch.startsHere) { [self] in
            let result = await appValues(slots, of: ticket.graph)
            let action = transition { machine, now in machine.appValuesArrived(build: ticket.id, result, now: now) }
            if !action.release.isEmpty, let link { link.parent.released(child: link.child, boxes: action.release) }
            resume(action.resume)
            cancel(action.cancel)
            if let more = action.fetch { spawnFetch(more) }
            if let lifecycle = action.then { perform(lifecycle) }
            // The nodes the values unblocked run in this task: a scope instance of quick services
            // is built on the thread that asked for it, with no other task.
            if let launch = action.launch { await work(launch.orders, of: launch.ticket, at: priority) }
        }
    }

    /// The app values of `slots` (external slots of `part`), from the app's snapshot, leased:
    /// joins (or starts) the app's build; a reset of the app while waiting makes it wait for
    /// the new generation's; a value retired before it was leased makes it fetch again.
    func appValues(
        _ slots: [Int], of part: ServiceGraph
    ) async -> Result<Machine.AppValues, ContainerError> {
        guard let link else { preconditionFailure("only a scope instance fetches app values") }
        // The app builds what they need of its graph, whatever their start policy (in a graph
        // without start policies, every eager service, as start() does).
        let names: Machine.Demands.Key =
            link.parent.declared.declaresStartPolicies ? .names(slots.map { part.nodes[$0].name }) : .eager
        while true {
            let app: AppServices
            do {
                app = try await link.parent.start(names, label: link.label)
            } catch let error as ContainerError where error.code == .superseded && !Task.isCancelled {
                continue
            } catch let error as ContainerError {
                return .failure(error)
            } catch {
                // This build was cancelled (the instance was superseded or closed): its result is
                // discarded whatever it is.
                return .failure(.closed(link.label))
            }
            var values: [(slot: Int, box: AnyServiceBox)] = []
            var leased: [(slot: Int, box: AnyServiceBox)] = []
            var absent: [(slot: Int, reason: String)] = []
            values.reserveCapacity(slots.count)
            for slot in slots {
                let node = part.nodes[slot]
                if node.isOptional, let appSlot = app.layout.slots[node.name], !app.values.hasValue(appSlot) {
                    // An optional app service the app could not build: the instance does without.
                    absent.append((slot, app.absence(of: node.name) ?? "\(node.name) was not built by the app"))
                    continue
                }
                guard let appSlot = app.layout.slots[node.name], let box = app.values.value(at: appSlot),
                    box.typeID == node.provider.valueTypeID
                else {
                    return .failure(
                        .superseded(
                            generation: app.generation, by: app.generation + 1,
                            detail: "scope instance '\(link.label)' uses app service '\(node.name)', which the app "
                                + "snapshot it got no longer has (a reload)"))
                }
                values.append((slot, box))
                leased.append((appSlot, box))
            }
            switch link.parent.lease(child: link.child, values: leased) {
            case .leased:
                return .success(Machine.AppValues(values: values, generation: app.generation, absent: absent))
            case .childClosing:
                // The instance's close order is on its way (or came), and cancels this build:
                // fetching again until it arrives would only spin.
                await CancellationWait.untilCancelled()
                return .failure(.closed(link.label))
            case .refused:
                if Task.isCancelled { return .failure(.closed(link.label)) }
            }
        }
    }

    /// Gives app values leased for an earlier generation of this instance back to the app at
    /// once (its teardown of them waits for that).
    func release(_ stale: Machine.AppValues) {
        if let link { link.parent.released(child: link.child, boxes: stale.values.map(\.box)) }
    }

    /// For a scope instance whose app has a published snapshot holding every app service of its
    /// part: those values, leased; `nil` otherwise (the build fetches them).
    func readyAppValues() -> Machine.AppValues? {
        // Read before the lease: a supersession after it makes the values this one's no more.
        let ownGeneration = generation
        guard let link, let app = link.parent.current else { return nil }
        let part = declared
        // By the part's slots in the app's layout when it was made for this layout; by name otherwise.
        let known = part.appSlots.flatMap { $0.layoutID == app.layout.id ? $0.slots : nil }
        var values: [(slot: Int, box: AnyServiceBox)] = []
        var appSlots: [Int] = []
        values.reserveCapacity(part.nodes.count - part.builtCount)
        appSlots.reserveCapacity(part.nodes.count - part.builtCount)
        for slot in part.builtCount..<part.nodes.count {
            let node = part.nodes[slot]
            guard let appSlot = known?[slot - part.builtCount] ?? app.layout.slots[node.name],
                let box = app.values.value(at: appSlot), box.typeID == node.provider.valueTypeID
            else { return nil }
            values.append((slot, box))
            appSlots.append(appSlot)
        }
        guard !values.isEmpty,
            link.parent.lease(child: link.child, values: zip(appSlots, values).map { ($0, $1.box) }) == .leased
        else { return nil }
        return Machine.AppValues(values: values, generation: app.generation, forGeneration: ownGeneration)
    }

    // MARK: Operations and jobs

    func perform(_ action: Machine.OperationAction) {
        switch action {
        case .refuse(let waiter, let error, let forwarded):
            perform(forwarded)
            waiter(.failure(error))
        case .proceed(let supersession, let lifecycle): perform(supersession, lifecycle)
        }
    }

    func perform(_ action: Machine.DeadlineAction) {
        if case .cancel(let supersession, let lifecycle) = action { perform(supersession, lifecycle) }
    }

    /// `rebuilt` hears of each instance that accepts its `.reload` order, in the instance's step
    /// that accepts it (under its lock: `rebuilt` must only record).
    func perform(
        _ supersession: Machine.Supersession, _ lifecycle: Machine.Lifecycle,
        rebuilt: (@Sendable (CoordinatorCore) -> Void)? = nil
    ) {
        resume(supersession.resume)
        cancel(supersession.cancel)
        perform(supersession.children, rebuilt: rebuilt)
        perform(lifecycle)
    }

    /// Tells scope instances what an operation of this coordinator asks of them; each reports
    /// its teardowns back to that operation when done (and one that accepts a `.reload` order
    /// tells `rebuilt` first).
    func perform(_ orders: [Machine.ChildOrder], rebuilt: (@Sendable (CoordinatorCore) -> Void)? = nil) {
        for order in orders {
            let id = order.id
            let operation = order.operation
            let done: OperationWaiter = { [self] result in
                // Refused: the instance is closing on its own, and reports to its own close.
                guard case .success(let report) = result else {
                    return childEnded(id, reportedTo: operation, records: [], closed: false)
                }
                childEnded(id, reportedTo: operation, records: report.tornDown, closed: false)
            }
            switch order.order {
            case .supersede(let retired):
                order.child.perform(
                    order.child.transition { machine, now in
                        machine.supersessionRequested(retired: retired, waiter: done, now: now)
                    })
            case .reload(let part, let runTimes):
                let child = order.child
                var accepted: (@Sendable () -> Void)?
                if let rebuilt { accepted = { rebuilt(child) } }
                child.beginReload(part, runTimes: runTimes, accepted: accepted, then: done)
            case .close:
                order.child.beginShutdown(error: .closed(order.child.label ?? ""), reportedTo: operation) { _ in }
            }
        }
    }

    func perform(_ lifecycle: Machine.Lifecycle) {
        if case .tearDown(let batch) = lifecycle.next {
            if !batch.contains(where: { $0.box.hasTearDown }) {
                // Nothing to run: the job ends here rather than in a task of its own, so a reset
                // of values without teardowns completes without a thread hop.
                perform(transition { machine, now in machine.teardownFinished([], now: now) })
            } else {
                Task.detached { [self] in await runTeardown(batch) }
            }
        }
        if !lifecycle.release.isEmpty, let link { link.parent.released(child: link.child, boxes: lifecycle.release) }
        for (waiter, report) in lifecycle.completed { waiter(.success(report)) }
        for (waiter, error) in lifecycle.refused { waiter(.failure(error)) }
        perform(lifecycle.start)
    }

    /// Tears values down one at a time, in the order given (dependents first); errors are
    /// reported in the trace and in the report of the operation that owns the value (or the
    /// next operation's, when none does), never swallowed.
    func runTeardown(_ batch: [Machine.Teardowns.Teardown]) async {
        var records: [Machine.Teardowns.TeardownRecord] = []
        let items = batch.filter(\.box.hasTearDown)
        var next = 0
        while next < items.count {
            // Values made on the main actor are torn down there, those next to each other in
            // one hop; the order stays the batch's (dependents first).
            let onMain = items[next].box.madeOnMainActor
            var end = next + 1
            while end < items.count && items[end].box.madeOnMainActor == onMain { end += 1 }
            if onMain {
                records += await tearDownOnMainActor(items[next..<end])
            } else {
                for item in items[next..<end] { records.append(await tearDown(item)) }
            }
            next = end
        }
        perform(transition { machine, now in machine.teardownFinished(records, now: now) })
    }

    /// Tears `items` down one after another on the main actor (see ``runTeardown(_:)``).
    @MainActor
    private func tearDownOnMainActor(
        _ items: ArraySlice<Machine.Teardowns.Teardown>
    ) async -> [Machine.Teardowns.TeardownRecord] {
        var records: [Machine.Teardowns.TeardownRecord] = []
        for item in items { records.append(await tearDown(item)) }
        return records
    }

    /// Tears one value down on the caller's executor, traces it, and returns its record.
    nonisolated(nonsending) private func tearDown(
        _ item: Machine.Teardowns.Teardown
    ) async -> Machine.Teardowns.TeardownRecord {
        var message: String?
        do {
            try await item.box.tearDown()
        } catch {
            message = redactor.redact(String(describing: error))
        }
        let box = item.box
        tracer.emit(.nodeTornDown(node: box.name, error: message), build: box.builtIn)
        return .init(
            owner: item.owner,
            record: .init(service: box.name, generation: box.builtInGeneration, error: message, scope: label))
    }
}
