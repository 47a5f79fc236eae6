import ContainerTesting
import Synchronization

@testable import Container

/// A value made by a checker node: which node and generation made it, and the identities of
/// the dependency values its provider read.
final class CheckerValue: Sendable {
    let node: Int
    let generation: Int
    /// `app`, or the scope instance that built it (`s#i0`).
    let label: String
    let dependencies: [ObjectIdentifier]

    init(node: Int, generation: Int, label: String, dependencies: [ObjectIdentifier]) {
        self.node = node
        self.generation = generation
        self.label = label
        self.dependencies = dependencies
    }
}

extension ServiceKey where Value == CheckerValue {
    static func checker(_ index: Int) -> ServiceKey<CheckerValue> { ServiceKey("n\(index)") }
}

/// The instrumented providers and teardowns of one checker case, and what they observed.
///
/// Invariants that must hold at the moment something happens (no overlap of providers and
/// teardowns, dependents torn down before their dependencies, no run after a permanent
/// failure) are checked right there and recorded as violations.
final class CheckerWorld: Sendable {
    /// One provider run: of the app (`label` "app") or of a scope instance.
    struct Run: Hashable {
        let label: String
        let generation: Int
        let attempt: Int
        let node: Int
    }

    /// A generation of one coordinator (the app's or a scope instance's).
    struct Generation: Hashable {
        let label: String
        let generation: Int
    }

    struct ValueRecord {
        let value: CheckerValue
        var teardowns = 0
        /// World sequence number at which its (first) teardown finished.
        var tornDownAt: Int?
    }

    struct State {
        var sequence = 0
        /// Provider runs and teardowns in flight, per coordinator (`app` or a scope instance):
        /// each coordinator never overlaps them; different coordinators may.
        var providersInFlight: [String: Int] = [:]
        var teardownsInFlight: [String: Int] = [:]
        /// How many provider runs in flight read each value.
        var readsInFlight: [ObjectIdentifier: Int] = [:]
        var runs: [Run: Int] = [:]
        /// The step each run took.
        var steps: [Run: CheckerPlan.Step] = [:]
        var successes: [Generation: [Int: Int]] = [:]  // node -> successful runs
        var values: [ObjectIdentifier: ValueRecord] = [:]
        var permanentFailureAt: [Generation: Int] = [:]  // sequence
        var failedTeardowns: [String] = []  // "label/node g<gen>", one per failed teardown
        /// Set once a shutdown returned: no provider may run any more.
        var frozen = false
        var violations: [String] = []
        /// How many times each scope instance label was opened: an instance closed and opened
        /// again is a new coordinator, whose generations start over.
        var incarnations: [String: Int] = [:]

        /// The key of the runs, successes and permanent failures of the instance `label`
        /// opened last (see ``CheckerWorld/key(_:in:)``).
        func key(_ label: String) -> String { CheckerWorld.key(label, in: incarnations) }

        mutating func tick() -> Int {
            sequence += 1
            return sequence
        }
    }

    let plan: CheckerPlan
    let gates: [Gate]
    let lateGates: [Gate]
    /// The gates gated teardowns wait on.
    let teardownGates: [Gate]
    /// Never opened: `hang` steps wait on it until cancelled.
    let never = Gate()
    let state = Locked(State())

    init(plan: CheckerPlan) {
        self.plan = plan
        gates = plan.nodes.map { _ in Gate() }
        lateGates = plan.nodes.map { _ in Gate() }
        teardownGates = plan.nodes.map { _ in Gate() }
    }

    func violation(_ text: String) { state.withLock { $0.violations.append(text) } }

    func tick() -> Int { state.withLock { $0.tick() } }

    /// A shutdown returned: every build has stopped, and none may start.
    func freeze() { state.withLock { $0.frozen = true } }

    /// The specs of the plan's graph, with instrumented providers and teardowns; `versions`
    /// gives nodes new options (a reload's changed declarations), `withScope` false leaves the
    /// scoped nodes out.
    func specs(versions: [Int: Int] = [:], withScope: Bool = true) -> [ServiceSpec] {
        plan.nodes.enumerated().compactMap { index, node in
            guard withScope || !node.scoped else { return nil }
            return ServiceSpec(
                .checker(index), dependsOn: node.dependencies.map { plan.nodes[$0].name },
                options: ServiceOptions(versions[index].map { ["version": .int($0)] } ?? [:]),
                timeout: node.hasTimeout ? .milliseconds(1) : nil,
                lifetime: node.nested ? .scope("t") : node.scoped ? .scope("s") : .app,
                tearDown: { [self] value in try await tearDown(value) }
            ) { [self] context in try await provide(index, context) }
        }
    }

    private func provide(_ index: Int, _ context: ProviderContext) async throws -> CheckerValue {
        let node = plan.nodes[index]
        let label = context.scopeInstance ?? "app"
        // Runs, successes and permanent failures by incarnation (the teardowns and values, by
        // label: the runtime's reports name them so, and one incarnation never overlaps the next).
        let key = state.withLock { $0.key(label) }
        let run = Run(label: key, generation: context.generation, attempt: context.attempt, node: index)
        let generation = Generation(label: key, generation: context.generation)
        state.withLock { state in
            let now = state.tick()
            state.providersInFlight[label, default: 0] += 1
            state.runs[run, default: 0] += 1
            if state.teardownsInFlight[label, default: 0] > 0 {
                state.violations.append(
                    "\(label) \(node.name) g\(run.generation) started while a teardown runs (rule 8)")
            }
            if state.frozen {
                state.violations.append("\(label) \(node.name) g\(run.generation) ran after the shutdown returned")
            }
            if let failedAt = state.permanentFailureAt[generation], failedAt < now {
                state.violations.append(
                    "\(label) \(node.name) ran in generation \(run.generation) after its permanent failure (rule 4)")
            }
        }
        defer { state.withLock { $0.providersInFlight[label, default: 0] -= 1 } }
        let dependencies = try node.dependencies.map { ObjectIdentifier(try context[.checker($0)]) }
        state.withLock { state in for id in dependencies { state.readsInFlight[id, default: 0] += 1 } }
        defer { state.withLock { state in for id in dependencies { state.readsInFlight[id, default: 0] -= 1 } } }
        let step = node.steps[min(context.runInGeneration, node.steps.count) - 1]
        // A gated run may end on its gate (cancelled by its timeout) before it reaches its step.
        if node.gated { try await gates[index].cancellableWait() }
        state.withLock { $0.steps[run] = step }
        switch step {
        case .ok:
            let value = CheckerValue(
                node: index, generation: context.generation, label: label, dependencies: dependencies)
            state.withLock { state in
                state.values[ObjectIdentifier(value)] = ValueRecord(value: value)
                state.successes[generation, default: [:]][index, default: 0] += 1
            }
            return value
        case .transient: throw Classified(failureKind: .transient)
        case .permanent: throw Classified(failureKind: .permanent)
        case .hang:
            try await never.cancellableWait()
            throw TestError("hang ended without cancellation")
        case .lateError:
            await lateGates[index].wait()
            throw LateError(node: node.name)
        }
    }

    private func tearDown(_ value: CheckerValue) async throws {
        let node = plan.nodes[value.node]
        let id = ObjectIdentifier(value)
        let label = value.label
        state.withLock { state in
            _ = state.tick()
            state.teardownsInFlight[label, default: 0] += 1
            if state.providersInFlight[label, default: 0] > 0 {
                state.violations.append(
                    "teardown of \(label) \(node.name) g\(value.generation) while a provider runs (rule 8)")
            }
            if state.readsInFlight[id, default: 0] > 0 {
                state.violations.append(
                    "teardown of \(label) \(node.name) g\(value.generation) while a provider that read it runs"
                )
            }
            // Dependents first (Coordinator rules, "Teardown"): every value that read this one is already torn down.
            for record in state.values.values where record.value.dependencies.contains(id) && record.teardowns == 0 {
                state.violations.append(
                    "\(node.name) g\(value.generation) torn down before its dependent "
                        + "\(plan.nodes[record.value.node].name) g\(record.value.generation) (teardown order)")
            }
        }
        if node.teardownGated { await teardownGates[value.node].wait() }
        state.withLock { state in
            state.teardownsInFlight[label, default: 0] -= 1
            let now = state.tick()
            state.values[id]?.teardowns += 1
            if state.values[id]?.tornDownAt == nil { state.values[id]?.tornDownAt = now }
            if node.teardownFails {
                state.failedTeardowns.append("\(label)/\(node.name) g\(value.generation)")
            }
        }
        if node.teardownFails { throw TestError("teardown of \(node.name) failed") }
    }

    /// `label` for its first opening (and the app), `label@2` from its second opening on, by
    /// the counts of openings `incarnations`.
    static func key(_ label: String, in incarnations: [String: Int]) -> String {
        guard let count = incarnations[label], count > 1 else { return label }
        return "\(label)@\(count)"
    }

    /// Records that the scope instance `label` was opened (again).
    func opened(_ label: String) {
        state.withLock { $0.incarnations[label, default: 0] += 1 }
    }

    /// A caller received a permanent failure of `generation` of `label`: no provider of it may run after this.
    func sawPermanentFailure(label: String, generation: Int) {
        state.withLock { state in
            let key = Generation(label: state.key(label), generation: generation)
            let now = state.tick()
            if state.permanentFailureAt[key] == nil { state.permanentFailureAt[key] = now }
        }
    }

    func openAllGates() {
        for gate in gates { gate.open() }
        for gate in lateGates { gate.open() }
        for gate in teardownGates { gate.open() }
    }
}

/// The error of a `lateError` step: permanent, thrown after the node's timeout fired.
struct LateError: ClassifiedError, CustomStringConvertible {
    let node: String
    var failureKind: FailureKind { .permanent }
    var description: String { "late permanent error of \(node)" }
}
