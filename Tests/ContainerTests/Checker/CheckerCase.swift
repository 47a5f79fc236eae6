import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// Runs one ``CheckerPlan`` against a real container and returns every violated invariant.
struct CheckerCase {
    /// What one caller got.
    enum Answer {
        case snapshot(AppServices)
        case failure(ContainerError)
        case cancelled
        case unexpected(any Error)
    }

    final class CallerRecord: Sendable {
        let label: String
        /// The scope instance it asked (`s#i0`), or `nil` for the app.
        let instance: String?
        let mode: CheckerPlan.CancelMode
        let alreadyCancelled: Bool
        /// World sequence number when the caller called `start()`.
        let startedAt: Int
        let task: Task<Answer, Never>

        init(
            label: String, instance: String?, mode: CheckerPlan.CancelMode, alreadyCancelled: Bool, startedAt: Int,
            task: Task<Answer, Never>
        ) {
            self.label = label
            self.instance = instance
            self.mode = mode
            self.alreadyCancelled = alreadyCancelled
            self.startedAt = startedAt
            self.task = task
        }
    }

    let plan: CheckerPlan
    let world: CheckerWorld
    let watcher = TraceWatcher()
    /// Callers that have their answer.
    let finished = Counter()
    let container: ServiceContainer
    /// How long any single wait may take before the case fails: the bound of a hang, generous for
    /// a loaded machine running the whole suite in parallel.
    let patience: Duration = .seconds(30)

    init(plan: CheckerPlan) throws {
        self.plan = plan
        world = CheckerWorld(plan: plan)
        container = ServiceContainer(
            graph: try ServiceGraph(world.specs(), scopes: plan.hasScope ? ["s"] : []),
            policy: plan.failFast ? .failFast : .default, trace: plan.traced ? [watcher] : [])
    }

    /// Performs the plan's operations, shuts the container down, and checks everything.
    func run() async throws -> [String] {
        var callers: [CallerRecord] = []
        var resets: [Task<Result<ResetReport, ContainerError>, Never>] = []
        var settled: [ResetReport] = []
        var instances: [Int: ScopeInstance] = [:]
        var closes: [Task<Result<ResetReport, ContainerError>, Never>] = []
        let hasUnboundedHang = plan.nodes.contains { $0.steps.contains(.hang) }
        for (index, operation) in plan.operations.enumerated() {
            switch operation {
            case .open(let number):
                guard instances[number] == nil else { break }
                // Refused only while its close (in its own task) has not finished: then skip it.
                instances[number] = try? container.openScope("s", id: "i\(number)")
            case .close(let number):
                guard let instance = instances.removeValue(forKey: number) else { break }
                closes.append(Task { await resetResult { try await instance.close() } })
            case .scopeCallers(let number, let count, let mode):
                guard let instance = instances[number] else { break }
                for caller in 0..<count {
                    let record = call(label: "s\(index)-\(caller)", mode: mode, in: instance)
                    callers.append(record)
                    try await cancel(record, mode: mode)
                }
            case .callers(let count, let mode):
                for number in 0..<count {
                    let record = call(label: "c\(index)-\(number)", mode: mode)
                    callers.append(record)
                    try await cancel(record, mode: mode)
                }
            case .cancelledCaller:
                callers.append(call(label: "x\(index)", mode: .immediately, alreadyCancelled: true))
            case .openGates(let nodes):
                for node in nodes { world.gates[node].open() }
            case .openLateGates:
                for gate in world.lateGates { gate.open() }
            case .reset(let nodes):
                let names = nodes.map { $0.map { plan.nodes[$0].name } }
                resets.append(
                    Task { [container] in await resetResult { try await container.reset(invalidating: names) } })
            case .settle:
                world.openAllGates()
                // A hang without a timeout ends only when the build is cancelled: reset until every
                // caller has its answer (a caller that registers after a reset starts a build that
                // hangs again, so one reset may not be enough).
                // Closing an instance cancels its build too: the instances go (they may be opened again).
                if hasUnboundedHang {
                    for (_, instance) in instances {
                        closes.append(Task { await resetResult { try await instance.close() } })
                    }
                    instances = [:]
                }
                var rounds = 0
                while hasUnboundedHang && finished.count < callers.count && rounds < 100 {
                    rounds += 1
                    let result = try await withTimeout(patience, "a settling reset") { [container] in
                        await resetResult { try await container.reset() }
                    }
                    if case .success(let report) = result { settled.append(report) }
                    await Task.yield()
                }
                for caller in callers {
                    _ = try await withTimeout(patience, "caller \(caller.label) to settle") { await caller.task.value }
                }
            }
        }
        world.openAllGates()
        let shutdown = try await withTimeout(patience, "the shutdown") { [container] in
            await resetResult { try await container.shutdown() }
        }
        var answers: [(CallerRecord, Answer)] = []
        for caller in callers {
            answers.append(
                (caller, try await withTimeout(patience, "caller \(caller.label)") { await caller.task.value }))
        }
        var reports = settled
        for reset in resets + closes {
            let result = try await withTimeout(patience, "a reset") { await reset.value }
            if case .success(let report) = result { reports.append(report) }
        }
        if case .success(let report) = shutdown {
            reports.append(report)
        } else {
            world.violation("shutdown failed: \(shutdown)")
        }
        var checker = CheckerInvariants(plan: plan, world: world, events: plan.traced ? watcher.events : nil)
        checker.check(answers: answers, reports: reports)
        return world.state.withLock { $0.violations } + checker.violations
    }

    /// Cancels `record` as `mode` says; after joining, its answer must come promptly (rule 5).
    private func cancel(_ record: CallerRecord, mode: CheckerPlan.CancelMode) async throws {
        switch mode {
        case .none: break
        case .immediately: record.task.cancel()
        case .afterJoining:
            try await watcher.wait(for: "\(record.label) to join", timeout: patience) { events in
                events.contains { $0.kind.caller == record.label && $0.kind.name == "caller.joined" }
            }
            record.task.cancel()
            // Promptly: the answer comes without opening any gate.
            _ = try await withTimeout(patience, "cancelled caller \(record.label)") { await record.task.value }
        }
    }

    private func call(
        label: String, mode: CheckerPlan.CancelMode, alreadyCancelled: Bool = false, in instance: ScopeInstance? = nil
    ) -> CallerRecord {
        let startedAt = world.tick()
        let world = world
        let finished = finished
        let plan = plan
        let task = Task { [container] () -> Answer in
            defer { finished.increment() }
            if alreadyCancelled {
                withUnsafeCurrentTask { $0?.cancel() }
            }
            do {
                if let instance { return .snapshot(try await instance.start(as: label)) }
                return .snapshot(try await container.start(as: label))
            } catch let error as ContainerError {
                if error.code == .buildFailed, error.failure == .permanent, let report = error.report {
                    // A scope instance's own build reports its scoped nodes; the app's, app nodes.
                    let scoped = report.nodes.first.map { node in
                        plan.nodes.contains { $0.name == node.name && $0.scoped }
                    }
                    world.sawPermanentFailure(
                        label: scoped == true ? (instance?.label ?? "app") : "app", generation: error.generation)
                }
                return .failure(error)
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .unexpected(error)
            }
        }
        return CallerRecord(
            label: label, instance: instance?.label, mode: mode, alreadyCancelled: alreadyCancelled,
            startedAt: startedAt, task: task)
    }
}

private func resetResult(_ body: () async throws -> ResetReport) async -> Result<ResetReport, ContainerError> {
    do {
        return .success(try await body())
    } catch let error as ContainerError {
        return .failure(error)
    } catch {
        return .failure(.shutDown(generation: -1))  // not thrown by reset() or shutdown()
    }
}
