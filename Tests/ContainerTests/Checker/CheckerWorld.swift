import ContainerTesting
import Synchronization

@testable import Container

/// A value made by a checker node: which node and generation made it, and the identities of
/// the dependency values its provider read.
final class CheckerValue: Sendable {
    let node: Int
    let generation: Int
    let dependencies: [ObjectIdentifier]

    init(node: Int, generation: Int, dependencies: [ObjectIdentifier]) {
        self.node = node
        self.generation = generation
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
    struct Run: Hashable {
        let generation: Int
        let attempt: Int
        let node: Int
    }

    struct ValueRecord {
        let value: CheckerValue
        var teardowns = 0
        /// World sequence number at which its (first) teardown finished.
        var tornDownAt: Int?
    }

    struct State {
        var sequence = 0
        var providersInFlight = 0
        var teardownsInFlight = 0
        var runs: [Run: Int] = [:]
        /// The step each run took.
        var steps: [Run: CheckerPlan.Step] = [:]
        var successes: [Int: [Int: Int]] = [:]  // generation -> node -> successful runs
        var values: [ObjectIdentifier: ValueRecord] = [:]
        var permanentFailureAt: [Int: Int] = [:]  // generation -> sequence
        var failedTeardowns: [String] = []  // "node g<gen>", one per failed teardown
        var violations: [String] = []

        mutating func tick() -> Int {
            sequence += 1
            return sequence
        }
    }

    let plan: CheckerPlan
    let gates: [Gate]
    let lateGates: [Gate]
    /// Never opened: `hang` steps wait on it until cancelled.
    let never = Gate()
    let state = Locked(State())

    init(plan: CheckerPlan) {
        self.plan = plan
        gates = plan.nodes.map { _ in Gate() }
        lateGates = plan.nodes.map { _ in Gate() }
    }

    func violation(_ text: String) { state.withLock { $0.violations.append(text) } }

    func tick() -> Int { state.withLock { $0.tick() } }

    /// The specs of the plan's graph, with instrumented providers and teardowns.
    func specs() -> [ServiceSpec] {
        plan.nodes.enumerated().map { index, node in
            ServiceSpec(
                .checker(index), dependsOn: node.dependencies.map { plan.nodes[$0].name },
                timeout: node.hasTimeout ? .milliseconds(1) : nil,
                tearDown: { [self] value in try await tearDown(value) }
            ) { [self] context in try await provide(index, context) }
        }
    }

    private func provide(_ index: Int, _ context: ProviderContext) async throws -> CheckerValue {
        let node = plan.nodes[index]
        let run = Run(generation: context.generation, attempt: context.attempt, node: index)
        state.withLock { state in
            let now = state.tick()
            state.providersInFlight += 1
            state.runs[run, default: 0] += 1
            if state.teardownsInFlight > 0 {
                state.violations.append("\(node.name) g\(run.generation) started while a teardown runs (rule 8)")
            }
            if let failedAt = state.permanentFailureAt[run.generation], failedAt < now {
                state.violations.append(
                    "\(node.name) ran in generation \(run.generation) after its permanent failure (rule 4)")
            }
        }
        defer { state.withLock { $0.providersInFlight -= 1 } }
        let dependencies = try node.dependencies.map { ObjectIdentifier(try context[.checker($0)]) }
        let step = node.steps[min(context.runInGeneration, node.steps.count) - 1]
        // A gated run may end on its gate (cancelled by its timeout) before it reaches its step.
        if node.gated { try await gates[index].cancellableWait() }
        state.withLock { $0.steps[run] = step }
        switch step {
        case .ok:
            let value = CheckerValue(node: index, generation: context.generation, dependencies: dependencies)
            state.withLock { state in
                state.values[ObjectIdentifier(value)] = ValueRecord(value: value)
                state.successes[run.generation, default: [:]][index, default: 0] += 1
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
        state.withLock { state in
            _ = state.tick()
            state.teardownsInFlight += 1
            if state.providersInFlight > 0 {
                state.violations.append("teardown of \(node.name) g\(value.generation) while a provider runs (rule 8)")
            }
            // Dependents first (§5): every value that read this one is already torn down.
            for record in state.values.values where record.value.dependencies.contains(id) && record.teardowns == 0 {
                state.violations.append(
                    "\(node.name) g\(value.generation) torn down before its dependent "
                        + "\(plan.nodes[record.value.node].name) g\(record.value.generation) (§5)")
            }
        }
        state.withLock { state in
            state.teardownsInFlight -= 1
            let now = state.tick()
            state.values[id]?.teardowns += 1
            if state.values[id]?.tornDownAt == nil { state.values[id]?.tornDownAt = now }
            if node.teardownFails { state.failedTeardowns.append("\(node.name) g\(value.generation)") }
        }
        if node.teardownFails { throw TestError("teardown of \(node.name) failed") }
    }

    /// A caller received a permanent failure of `generation`: no provider of it may run after this.
    func sawPermanentFailure(generation: Int) {
        state.withLock { state in
            let now = state.tick()
            if state.permanentFailureAt[generation] == nil { state.permanentFailureAt[generation] = now }
        }
    }

    func openAllGates() {
        for gate in gates { gate.open() }
        for gate in lateGates { gate.open() }
    }
}

/// The error of a `lateError` step: permanent, thrown after the node's timeout fired.
struct LateError: ClassifiedError, CustomStringConvertible {
    let node: String
    var failureKind: FailureKind { .permanent }
    var description: String { "late permanent error of \(node)" }
}
