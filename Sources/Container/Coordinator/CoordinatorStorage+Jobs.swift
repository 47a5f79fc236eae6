/// The storage's jobs: running a build task and a teardown job, and feeding their ends back
/// to the state machine through `transition`.
extension CoordinatorStorage {
    // MARK: Jobs

    // The build task's frames: `runBuild` keeps only what crosses its awaits; the transitions
    // and the builder's construction are synchronous helpers, on the thread's stack. (A task's
    // frames outgrowing its allocator's first slab cost a malloc per build.)

    func runBuild(_ ticket: BuildTicket) async {
        let id = ticket.id
        let graph = ticket.graph
        var external = SlotValues()
        var appGeneration: Int?
        if let binding {
            // A scope instance never assumes the app is ready: it joins (or starts) its build.
            // When the app's snapshot is published and its callers are answered inline (untraced),
            // it is read at once, as `start()` would return it.
            let app: AppServices
            if let ready = binding.parent.readySnapshot {
                app = ready
            } else {
                switch await binding.appSnapshot() {
                case .success(let snapshot): app = snapshot
                case .failure(let error):
                    upstreamFailed(id, error)
                    return
                }
            }
            do {
                external = try binding.externalValues(of: graph, from: app)
                appGeneration = app.generation
            } catch {
                upstreamFailed(id, error)
                return
            }
        }
        // The ticket's kept values go with the builder, before the coordinator keeps what it made.
        let result = await makeBuilder(ticket, external: external, appGeneration: appGeneration).run()
        buildFinished(id, result)
    }

    /// The published snapshot, when `start()` would return it at once (untraced).
    var readySnapshot: AppServices? { published.answersReadyInline ? current : nil }

    @inline(never)
    private func makeBuilder(_ ticket: BuildTicket, external: SlotValues, appGeneration: Int?) -> GraphBuilder {
        let inputs = ticket.takeInputs()
        return GraphBuilder(
            graph: ticket.graph, generation: ticket.build.generation, attempt: ticket.build.attempt,
            kept: inputs.kept, missingSlots: ticket.missingSlots, earlierRuns: inputs.earlierRuns, policy: policy,
            tracer: tracer, redactor: redactor,
            external: external, scopeInstance: binding?.label, parameters: binding?.parameters ?? .init(),
            appGeneration: appGeneration)
    }

    @inline(never)
    private func buildFinished(_ id: Int, _ result: BuildResult) {
        finish(transition { machine, now in machine.buildFinished(id: id, result: result, now: now) })
    }

    @inline(never)
    private func upstreamFailed(_ id: Int, _ error: ContainerError) {
        finish(transition { machine, _ in machine.upstreamFailed(id: id, error: error) })
    }

    private func finish(_ action: Machine.BuildFinishedAction) {
        switch action {
        case .publish(let snapshot, let waiters, let lifecycle):
            for waiter in waiters { waiter.resume(returning: snapshot) }
            perform(lifecycle)
        case .fail(let error, let waiters, let lifecycle):
            for waiter in waiters { waiter.resume(throwing: error) }
            perform(lifecycle)
        case .drained(let outcome, let waiters, let lifecycle):
            for waiter in waiters { resume(waiter, with: outcome) }
            perform(lifecycle)
        case .discard(let lifecycle):
            perform(lifecycle)
        }
    }

    /// Tears values down one at a time, in the order given (dependents first); errors are
    /// reported in the trace and in the report of the operation that owns the value (or the
    /// next operation's, when none does), never swallowed.
    func runTeardown(_ batch: [Machine.Jobs.Teardown], after superseded: [Completion]) async {
        for completion in superseded { await completion.wait() }
        var records: [Machine.Jobs.TeardownRecord] = []
        for item in batch where item.box.hasTearDown {
            var message: String?
            do {
                try await item.box.tearDown()
            } catch {
                message = redactor.redact(String(describing: error))
            }
            let box = item.box
            records.append(
                .init(
                    owner: item.owner,
                    record: .init(
                        service: box.name, generation: box.builtInGeneration, error: message, scope: scopeLabel)))
            tracer.emit(.nodeTornDown(node: box.name, error: message), build: box.builtIn, scope: scopeLabel)
        }
        perform(transition { machine, _ in machine.teardownFinished(records) })
    }
}
