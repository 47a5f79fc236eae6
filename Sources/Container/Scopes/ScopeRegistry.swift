/// The app's open scope instances (DESIGN §9): an app reset supersedes those that use a retired
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
        var supersessions: [Completion] = []
    }

    /// The declared graph and, per scope, the app services its part uses (shared by its instances).
    private struct Declared {
        let graph: ServiceGraph
        let uses: [String: Set<String>]

        init(_ graph: ServiceGraph) {
            self.graph = graph
            uses = graph.scopeParts.mapValues(\.externalNames)
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
        declaredGraph.withLock { ($0.graph, $0.graph.scopeParts[scope], $0.uses[scope] ?? []) }
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
    /// publish after this returns. Its teardown runs on; the app's next teardown job waits for it (``takeSupersessions()``).
    func supersede(using retired: Set<String>) {
        guard !retired.isEmpty else { return }
        let affected = state.withLock { state in
            Self.inOrder(state.open).filter { !$0.binding.uses.isDisjoint(with: retired) }
        }
        for instance in affected {
            let done = Completion()
            state.withLock { $0.supersessions.append(done) }
            instance.storage.beginReset(invalidating: nil) { result in
                guard case .failure = result else { return done.complete() }
                // Refused: the instance is closing. Its values are torn down by its close, which
                // the app's teardown must wait for just the same.
                Task {
                    await instance.closed.wait()
                    done.complete()
                }
            }
        }
    }

    /// The completions of the teardowns of every instance superseded so far (and not taken
    /// before): the app's next teardown job waits for them.
    func takeSupersessions() -> [Completion] {
        state.withLock { state in
            defer { state.supersessions = [] }
            return state.supersessions
        }
    }

    /// Refuses new instances and closes every open one (the app's shutdown, §9).
    func closeAll() async {
        let instances = state.withLock { state in
            state.closed = true
            return Self.inOrder(state.open)
        }
        for instance in instances {
            _ = try? await instance.close()
            // Closed by someone else meanwhile: its teardown may still run; it goes first all the same.
            await instance.closed.wait()
        }
    }
}
