/// The app's open scope instances (see <doc:Scopes>): an app reset supersedes those that use a retired
/// service before its own teardown starts, and its teardown waits for theirs; the app's
/// shutdown closes them all first.
final class ScopeRegistry: Sendable {
    private struct State {
        /// Open instances by label, each with its place in the order they were opened (a list
        /// in that order made closing one instance a scan of all of them).
        var open: [String: (place: Int, instance: ScopeInstance)] = [:]
        var nextPlace = 0
        /// Set by the app's shutdown: no instance opens any more.
        var closed = false
        /// Supersessions not yet awaited by an app teardown.
        var supersessions: [Supersession] = []
        /// Supersessions by the app operation whose report lists their teardowns.
        var byOperation: [Int: [Supersession]] = [:]
    }

    /// One instance superseded by an app operation: done once its teardowns are; their records
    /// go into that operation's report, so a teardown error is never lost (<doc:CoordinatorRules>).
    final class Supersession: Sendable {
        let done = Completion()
        let records = Locked<[ResetReport.Teardown]>([])
    }

    /// The declared graph and, per scope, its part and the app services the part uses (shared
    /// by its instances), found with one lookup when an instance opens.
    private struct Declared {
        let graph: ServiceGraph
        let scopes: [String: (part: ServiceGraph, uses: Set<String>)]

        init(_ graph: ServiceGraph) {
            self.graph = graph
            scopes = graph.scopeParts.mapValues { ($0, $0.externalNames) }
        }
    }

    private let state = Locked(State())
    /// The graph the app was created (or last reloaded) with, all lifetimes.
    private let declaredGraph: Locked<Declared>

    init(declared: ServiceGraph) { declaredGraph = Locked(Declared(declared)) }

    /// The whole declared graph (app and scopes).
    var declared: ServiceGraph { declaredGraph.withLock { $0.graph } }

    /// The declared graph, the part of `scope` (`nil`: no such scope) and the app services it uses.
    func scope(_ scope: String) -> (declared: ServiceGraph, part: ServiceGraph?, uses: Set<String>) {
        declaredGraph.withLock { declared in
            let found = declared.scopes[scope]
            return (declared.graph, found?.part, found?.uses ?? [])
        }
    }

    /// Replaces the declared graph (a reload).
    func setDeclared(_ graph: ServiceGraph) {
        let declared = Declared(graph)
        declaredGraph.withLock { $0 = declared }
    }

    /// The labels of the open instances, in the order they were opened.
    var openLabels: [String] { state.withLock { Self.inOrder($0.open).map(\.label) } }

    /// The open instances in the order they were opened.
    private static func inOrder(_ open: [String: (place: Int, instance: ScopeInstance)]) -> [ScopeInstance] {
        open.values.sorted { $0.place < $1.place }.map(\.instance)
    }

    /// Adds an instance.
    /// - Throws: `.scopeAlreadyOpen`, or `.shutDown` after the app's shutdown began.
    func register(_ instance: ScopeInstance, generation: Int) throws(ContainerError) {
        let refusal = state.withLock { state -> ContainerError? in
            if state.closed { return .shutDown(generation: generation) }
            if state.open[instance.label] != nil { return .scopeAlreadyOpen(instance.label) }
            state.open[instance.label] = (state.nextPlace, instance)
            state.nextPlace += 1
            return nil
        }
        if let refusal { throw refusal }
    }

    /// Removes a closed instance.
    func remove(_ label: String) {
        state.withLock { state in _ = state.open.removeValue(forKey: label) }
    }

    /// Supersedes, now, every open instance that uses one of `retired`: its build can never
    /// publish after this returns. Its teardown runs on; the app's next teardown job waits for it
    /// (``takeSupersessions()``), and ``teardowns(reportedBy:)`` gives its records to app
    /// operation `operation`'s report.
    func supersede(using retired: Set<String>, operation: Int) {
        guard !retired.isEmpty else { return }
        let affected = state.withLock { state in
            Self.inOrder(state.open).filter { !$0.binding.uses.isDisjoint(with: retired) }
        }
        for instance in affected {
            let supersession = Supersession()
            state.withLock { state in
                state.supersessions.append(supersession)
                state.byOperation[operation, default: []].append(supersession)
            }
            instance.storage.beginReset(invalidating: nil) { result in
                switch result {
                case .success(let report):
                    supersession.records.withLock { $0 = report.tornDown }
                    supersession.done.complete()
                case .failure:
                    // Refused: the instance is closing. Its values are torn down (and reported) by
                    // its close, which the app's teardown must wait for just the same.
                    Task {
                        await instance.closed.wait()
                        supersession.done.complete()
                    }
                }
            }
        }
    }

    /// The completions of the teardowns of every instance superseded so far (and not taken
    /// before): the app's next teardown job waits for them.
    func takeSupersessions() -> [Completion] {
        state.withLock { state in
            defer { state.supersessions = [] }
            return state.supersessions.map(\.done)
        }
    }

    /// Whether app operation `operation` superseded instances whose teardowns it must report.
    func hasSupersessions(reportedBy operation: Int) -> Bool {
        state.withLock { $0.byOperation[operation] != nil }
    }

    /// The teardowns of the instances app operation `operation` superseded, once they are done.
    func teardowns(reportedBy operation: Int) async -> [ResetReport.Teardown] {
        let supersessions = state.withLock { $0.byOperation.removeValue(forKey: operation) ?? [] }
        var records: [ResetReport.Teardown] = []
        for supersession in supersessions {
            await supersession.done.wait()
            records += supersession.records.withLock { $0 }
        }
        return records
    }

    /// After a reload of the app to `graph`: rebuilds the open instances of the scopes it
    /// changed on their new parts, and closes those of the scopes it removed.
    func reload(
        _ graph: ServiceGraph, changes: GraphChanges
    ) async -> (reloaded: [String], closed: [String], tornDown: [ResetReport.Teardown]) {
        let instances = state.withLock { state in Self.inOrder(state.open) }
        var reloaded: [String] = []
        var closed: [String] = []
        var tornDown: [ResetReport.Teardown] = []
        for instance in instances {
            if changes.removedScopes.contains(instance.scope) {
                if let report = try? await instance.close() { tornDown += report.tornDown }
                closed.append(instance.label)
            } else if changes.changedScopes.contains(instance.scope), let part = graph.scopeParts[instance.scope] {
                instance.binding.setUses(part.externalNames)
                let result = await withCheckedContinuation { continuation in
                    instance.storage.beginReload(part, changes: changes) { continuation.resume(returning: $0) }
                }
                if case .success(let report) = result { tornDown += report.tornDown }
                reloaded.append(instance.label)
            }
        }
        return (reloaded, closed, tornDown)
    }

    /// Refuses new instances and closes every open one (the app's shutdown, <doc:Scopes>); returns their
    /// teardowns, for the shutdown's report.
    func closeAll() async -> [ResetReport.Teardown] {
        let instances = state.withLock { state in
            state.closed = true
            return Self.inOrder(state.open)
        }
        var tornDown: [ResetReport.Teardown] = []
        for instance in instances {
            if let report = try? await instance.close() { tornDown += report.tornDown }
            // Closed by someone else meanwhile (who got its report): its teardown may still run;
            // it goes first all the same.
            await instance.closed.wait()
        }
        return tornDown
    }
}
