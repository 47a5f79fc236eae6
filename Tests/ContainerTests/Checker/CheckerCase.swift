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
        let mode: CheckerPlan.CancelMode
        let alreadyCancelled: Bool
        /// World sequence number when the caller called `start()`.
        let startedAt: Int
        let task: Task<Answer, Never>

        init(
            label: String, mode: CheckerPlan.CancelMode, alreadyCancelled: Bool, startedAt: Int,
            task: Task<Answer, Never>
        ) {
            self.label = label
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
    /// Seconds any single wait may take before the case fails.
    let patience: Duration = .seconds(10)

    init(plan: CheckerPlan) throws {
        self.plan = plan
        world = CheckerWorld(plan: plan)
        container = try ServiceContainer(
            world.specs(), policy: plan.failFast ? .failFast : .default, trace: plan.traced ? [watcher] : [])
    }

    /// Performs the plan's operations, shuts the container down, and checks everything.
    func run() async throws -> [String] {
        var callers: [CallerRecord] = []
        var resets: [Task<Result<ResetReport, ContainerError>, Never>] = []
        var settled: [ResetReport] = []
        let hasUnboundedHang = plan.nodes.contains { $0.steps.contains(.hang) }
        for (index, operation) in plan.operations.enumerated() {
            switch operation {
            case .callers(let count, let mode):
                for number in 0..<count {
                    let record = call(label: "c\(index)-\(number)", mode: mode)
                    callers.append(record)
                    switch mode {
                    case .none: break
                    case .immediately: record.task.cancel()
                    case .afterJoining:
                        try await watcher.wait(for: "\(record.label) to join", timeout: patience) { events in
                            events.contains { $0.kind.caller == record.label && $0.kind.name == "caller.joined" }
                        }
                        record.task.cancel()
                        // Promptly: the answer comes without opening any gate (rule 5).
                        _ = try await withTimeout(patience, "cancelled caller \(record.label)") {
                            await record.task.value
                        }
                    }
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
        for reset in resets {
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

    private func call(label: String, mode: CheckerPlan.CancelMode, alreadyCancelled: Bool = false) -> CallerRecord {
        let startedAt = world.tick()
        let world = world
        let finished = finished
        let task = Task { [container] () -> Answer in
            defer { finished.increment() }
            if alreadyCancelled {
                withUnsafeCurrentTask { $0?.cancel() }
            }
            do {
                return .snapshot(try await container.start(as: label))
            } catch let error as ContainerError {
                if error.code == .buildFailed, error.failure == .permanent {
                    world.sawPermanentFailure(generation: error.generation)
                }
                return .failure(error)
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .unexpected(error)
            }
        }
        return CallerRecord(
            label: label, mode: mode, alreadyCancelled: alreadyCancelled, startedAt: startedAt, task: task)
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
