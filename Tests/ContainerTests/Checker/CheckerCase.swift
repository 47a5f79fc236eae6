import ContainerTesting
import Foundation
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
        /// Called once a shutdown took effect: must be refused (`.shutDown`, or a scope's `.closed`).
        let afterShutdown: Bool
        /// World sequence number when the caller called `start()`.
        let startedAt: Int
        let task: Task<Answer, Never>
        /// How many times each scope instance label had been opened when it called: keys its
        /// answers apart from those of an instance closed before under the same label.
        let incarnations: [String: Int]

        init(
            label: String, instance: String?, mode: CheckerPlan.CancelMode, alreadyCancelled: Bool,
            afterShutdown: Bool, startedAt: Int, task: Task<Answer, Never>, incarnations: [String: Int]
        ) {
            self.incarnations = incarnations
            self.label = label
            self.instance = instance
            self.mode = mode
            self.alreadyCancelled = alreadyCancelled
            self.afterShutdown = afterShutdown
            self.startedAt = startedAt
            self.task = task
        }
    }

    /// A reset, close or shutdown in its own task.
    typealias OperationTask = Task<Result<ServiceContainer.ResetReport, ContainerError>, Never>

    let plan: CheckerPlan
    let world: CheckerWorld
    let watcher = TraceWatcher()
    /// Callers that have their answer.
    let finished = Counter()
    let container: ServiceContainer
    /// How long any single wait may take before the case fails: the bound of a hang, generous for
    /// a loaded machine running the whole suite in parallel.
    let patience: Duration = .seconds(60)

    init(plan: CheckerPlan) throws {
        self.plan = plan
        world = CheckerWorld(plan: plan)
        container = ServiceContainer(
            graph: try ServiceGraph(world.specs(), scopes: plan.scopes()),
            policy: plan.failFast ? .failFast : .default, trace: plan.traced ? [watcher] : [])
    }

    /// Performs the plan's operations, shuts the container down, and checks everything.
    func run() async throws -> [String] {
        var callers: [CallerRecord] = []
        var resets: [OperationTask] = []
        /// Mid-case shutdowns, in order: the first must succeed, every later one be refused.
        var shutdowns: [OperationTask] = []
        /// Resets and closes asked for after a shutdown took effect: each must be refused.
        var refused: [(what: String, code: ContainerError.Code, task: OperationTask)] = []
        /// Set once a shutdown took effect: every call from then on must be refused.
        var shutDown = false
        var settled: [ServiceContainer.ResetReport] = []
        var instances: [Int: ScopeInstance] = [:]
        /// Instances of `t`, by `"<parent>/<n>"`; closing a parent drops its own.
        var nested: [String: ScopeInstance] = [:]
        var closes: [OperationTask] = []
        /// The graph's version: the nodes a reload changed (with their versions), and whether it
        /// declares the scope.
        var versions: [Int: Int] = [:]
        var withScope = true
        var reloads: [OperationTask] = []
        let hasUnboundedHang = plan.nodes.contains { $0.steps.contains(.hang) }
        // Two observers of the snapshots, one quick and one that lets others run between
        // elements (it lags behind, so it gets the newest): checked once the shutdown ended them.
        let observers = (0..<2).map { lagging in
            // Subscribed here, before any operation, not when the task first runs.
            let snapshots = container.snapshots.makeAsyncIterator()
            return Task {
                var snapshots = snapshots
                var seen: [AppServices] = []
                while let snapshot = await snapshots.next() {
                    seen.append(snapshot)
                    if lagging == 1 { for _ in 0..<3 { await Task.yield() } }
                }
                return seen
            }
        }
        for (index, operation) in plan.operations.enumerated() {
            switch operation {
            case .open(let number) where shutDown:
                do {
                    _ = try container.openScope("s", id: "i\(number)")
                    world.violation("openScope(i\(number)) succeeded after the shutdown")
                } catch {
                    if error.code != .shutDown { world.violation("openScope after the shutdown threw \(error)") }
                }
            case .open(let number):
                guard instances[number] == nil else { break }
                // Refused only while its close (in its own task) has not finished: then skip it.
                instances[number] = try? container.openScope("s", id: "i\(number)")
                if let opened = instances[number] { world.opened(opened.label) }
            case .close(let number) where shutDown:
                // The shutdown closed every instance: closing one again is refused.
                guard let instance = instances[number] else { break }
                refused.append(
                    ("close(i\(number))", .closed, Task { await resetResult { try await instance.close() } }))
            case .close(let number):
                guard let instance = instances.removeValue(forKey: number) else { break }
                // Its nested instances close with it (before it).
                nested = nested.filter { !$0.key.hasPrefix("\(number)/") }
                closes.append(Task { await resetResult { try await instance.close() } })
            case .openNested(let parent, let number) where shutDown:
                guard let instance = instances[parent] else { break }
                do {
                    _ = try instance.openScope("t", id: "j\(number)")
                    world.violation("openScope(i\(parent)/j\(number)) succeeded after the shutdown")
                } catch {
                    if error.code != .closed && error.code != .shutDown {
                        world.violation("openScope(i\(parent)/j\(number)) after the shutdown threw \(error)")
                    }
                }
            case .openNested(let parent, let number):
                openNested(parent, number, instances: &instances, nested: &nested)
            case .nestedCallers(let parent, let number, let count, let mode):
                if !shutDown { openNested(parent, number, instances: &instances, nested: &nested) }
                guard let instance = nested["\(parent)/\(number)"] else { break }
                for caller in 0..<count {
                    let record = call(
                        label: "t\(index)-\(caller)", mode: mode, afterShutdown: shutDown, in: instance)
                    callers.append(record)
                    try await cancel(record, mode: mode)
                }
            case .closeNested(let parent, let number) where shutDown:
                guard let instance = nested["\(parent)/\(number)"] else { break }
                refused.append(
                    ("close(i\(parent)/j\(number))", .closed, Task { await resetResult { try await instance.close() } })
                )
            case .closeNested(let parent, let number):
                guard let instance = nested.removeValue(forKey: "\(parent)/\(number)") else { break }
                closes.append(Task { await resetResult { try await instance.close() } })
            case .scopeCallers(let number, let count, let mode):
                guard let instance = instances[number] else { break }
                for caller in 0..<count {
                    let record = call(
                        label: "s\(index)-\(caller)", mode: mode, afterShutdown: shutDown, in: instance)
                    callers.append(record)
                    try await cancel(record, mode: mode)
                }
            case .callers(let count, let mode):
                for number in 0..<count {
                    let record = call(label: "c\(index)-\(number)", mode: mode, afterShutdown: shutDown)
                    callers.append(record)
                    try await cancel(record, mode: mode)
                }
            case .cancelledCaller:
                callers.append(
                    call(label: "x\(index)", mode: .immediately, alreadyCancelled: true, afterShutdown: shutDown))
            case .openGates(let nodes):
                for node in nodes { world.gates[node].open() }
            case .openLateGates:
                for gate in world.lateGates { gate.open() }
            case .reset(let nodes):
                let names = nodes.map { $0.map { plan.nodes[$0].name } }
                let reset = Task { [container] in await resetResult { try await container.reset(invalidating: names) } }
                if shutDown {
                    refused.append(("reset(\(nodes.map { "\($0)" } ?? "all"))", .shutDown, reset))
                } else {
                    resets.append(reset)
                }
            case .settle:
                world.openAllGates()
                // A hang without a timeout ends only when the build is cancelled: reset until every
                // caller has its answer (a caller that registers after a reset starts a build that
                // hangs again, so one reset may not be enough).
                // Closing an instance cancels its build too: the instances go (they may be opened again).
                if hasUnboundedHang && !shutDown {
                    for (_, instance) in instances {
                        closes.append(Task { await resetResult { try await instance.close() } })
                    }
                    instances = [:]
                    nested = [:]
                }
                var rounds = 0
                // After a shutdown every caller is answered without one (and resets are refused).
                while hasUnboundedHang && !shutDown && finished.count < callers.count && rounds < 100 {
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
            case .shutdown(let mode):
                shutdowns += try await shutDownMidCase(
                    mode, after: shutdowns, instances: Array(instances.values) + Array(nested.values))
                shutDown = true
            case .openTeardowns:
                for gate in world.teardownGates { gate.open() }
            case .reload(let reload):
                if let changed = reload.changed { versions[changed, default: 0] += 1 }
                withScope = reload.withScope
                let graph = try ServiceGraph(
                    world.specs(versions: versions, withScope: withScope), scopes: plan.scopes(withScope: withScope))
                let task = Task { [container] in
                    await resetResult {
                        let report = try await container.reload(graph)
                        return ServiceContainer.ResetReport(
                            reason: .reload, from: report.from, to: report.to, invalidated: report.rebuilt,
                            carriedOver: report.carriedOver, tornDown: report.tornDown)
                    }
                }
                if shutDown { refused.append(("reload", .shutDown, task)) } else { reloads.append(task) }
            }
        }
        world.openAllGates()
        var reports = settled
        let shutdown = try await withTimeout(patience, "the shutdown") { [container] in
            await resetResult { try await container.shutdown() }
        }
        // Exactly one mid-case shutdown succeeds (two may be called at once); the others are refused.
        var succeeded = 0
        for (index, task) in shutdowns.enumerated() {
            let result = try await withTimeout(patience, "mid-case shutdown \(index)") { await task.value }
            switch result {
            case .success(let report):
                succeeded += 1
                reports.append(report)
            case .failure(let error) where error.code == .shutDown: break
            case .failure(let error): world.violation("mid-case shutdown \(index) failed: \(error)")
            }
        }
        if !shutdowns.isEmpty && succeeded != 1 {
            world.violation("\(succeeded) of \(shutdowns.count) mid-case shutdowns succeeded, not one")
        }
        for (what, code, task) in refused {
            let result = try await withTimeout(patience, "\(what) after the shutdown") { await task.value }
            if case .failure(let error) = result, error.code == code { continue }
            world.violation("\(what) after the shutdown got \(result), not \(code)")
        }
        checkShutDown(returned: true, instances: Array(instances.values) + Array(nested.values))
        var answers: [(CallerRecord, Answer)] = []
        for caller in callers {
            answers.append(
                (caller, try await withTimeout(patience, "caller \(caller.label)") { await caller.task.value }))
        }
        for reset in resets + closes + reloads {
            let result = try await withTimeout(patience, "a reset") { await reset.value }
            if case .success(let report) = result { reports.append(report) }
        }
        switch shutdown {
        case .success(let report) where shutdowns.isEmpty: reports.append(report)
        case .failure(let error) where !shutdowns.isEmpty && error.code == .shutDown: break
        default: world.violation("the final shutdown got \(shutdown)")
        }
        for (index, observer) in observers.enumerated() {
            let seen = try await withTimeout(patience, "observer \(index) to end at the shutdown") {
                await observer.value
            }
            checkObserved(seen, by: "observer \(index)")
        }
        var checker = CheckerInvariants(plan: plan, world: world, events: plan.traced ? watcher.events : nil)
        checker.check(answers: answers, reports: reports)
        let all = world.state.withLock { $0.violations } + checker.violations
        // `CHECKER_DUMP=1`: a failing traced case prints its trace, each event with its details.
        if !all.isEmpty, ProcessInfo.processInfo.environment["CHECKER_DUMP"] != nil {
            for event in watcher.events { print("trace:", event, event.kind) }
        }
        return all
    }

    /// Opens nested instance `j<number>` of `i<parent>`, opening the parent first when needed
    /// (either is skipped while a close of it in its own task has not finished).
    private func openNested(
        _ parent: Int, _ number: Int, instances: inout [Int: ScopeInstance], nested: inout [String: ScopeInstance]
    ) {
        if instances[parent] == nil {
            instances[parent] = try? container.openScope("s", id: "i\(parent)")
            if let opened = instances[parent] { world.opened(opened.label) }
        }
        guard let instance = instances[parent], nested["\(parent)/\(number)"] == nil else { return }
        nested["\(parent)/\(number)"] = try? instance.openScope("t", id: "j\(number)")
        if let opened = nested["\(parent)/\(number)"] { world.opened(opened.label) }
    }

    /// An observer's snapshots: each at most once, in publication order (generations never go
    /// back; within one, a snapshot never holds fewer values than the one before).
    private func checkObserved(_ seen: [AppServices], by observer: String) {
        if Set(seen.map(ObjectIdentifier.init)).count != seen.count {
            world.violation("\(observer) got a snapshot twice")
        }
        for (earlier, later) in zip(seen, seen.dropFirst()) {
            let inOrder =
                later.generation > earlier.generation
                || (later.generation == earlier.generation && later.values.count >= earlier.values.count)
            if !inOrder {
                world.violation(
                    "\(observer) got generation \(later.generation) (\(later.values.count) values) after "
                        + "generation \(earlier.generation) (\(earlier.values.count) values)")
            }
        }
    }

    /// Shuts down in a task of its own as `mode` says and waits until the shutdown took effect
    /// (or returned); then checks that nothing is published or resolvable any more.
    /// `earlier` are the shutdowns before it: a later one is refused at once, so waiting until
    /// the shutdown returned means waiting for them too.
    private func shutDownMidCase(
        _ mode: CheckerPlan.Shutdown, after earlier: [OperationTask],
        instances: [ScopeInstance]
    ) async throws -> [OperationTask] {
        if mode.opensGates { for gate in world.gates { gate.open() } }
        let awaitsReturn = mode.awaitsReturn || !plan.traced
        // A late error ignores cancellation: the shutdown returns only once its gate opens. And the
        // app's shutdown takes effect only once every scope instance closed: a scoped one holds it up.
        if awaitsReturn || plan.nodes.contains(where: { $0.scoped && $0.steps.contains(.lateError) }) {
            for gate in world.lateGates { gate.open() }
        }
        // A shutdown returns once every value is torn down: a held teardown would hold it up.
        if awaitsReturn { for gate in world.teardownGates { gate.open() } }
        let shut = { [container] in
            Task {
                await resetResult {
                    guard let milliseconds = mode.deadlineMs else { return try await container.shutdown() }
                    return try await container.shutdown(deadline: .now + .milliseconds(milliseconds))
                }
            }
        }
        // A concurrent shutdown is called at the same moment: one of the two is refused at once.
        let tasks = mode.concurrent ? [shut(), shut()] : [shut()]
        if awaitsReturn {
            for shutdown in earlier + tasks {
                _ = try await withTimeout(patience, "the shutdown to return") { await shutdown.value }
            }
            // Every build has stopped: no provider may run from now on.
            world.freeze()
        } else {
            try await watcher.wait(for: "the shutdown to take effect", timeout: patience) { events in
                events.contains { $0.kind == .containerShutdown }
            }
        }
        checkShutDown(returned: awaitsReturn, instances: instances)
        return tasks
    }

    /// Once a shutdown took effect: nothing is published or resolvable, the status says so; once
    /// it returned, nobody waits and no teardown is left unreported.
    private func checkShutDown(returned: Bool, instances: [ScopeInstance]) {
        if container.current != nil { world.violation("a snapshot is published after the shutdown") }
        for instance in instances {
            if instance.current != nil {
                world.violation("\(instance.label) has a snapshot published after the shutdown")
            }
            guard let scoped = plan.nodes.indices.first(where: { plan.nodes[$0].scoped }) else { continue }
            do {
                _ = try instance.resolve(.checker(scoped))
                world.violation("\(instance.label).resolve() read a value after the shutdown")
            } catch let error as ContainerError where error.code == .closed {
            } catch {
                world.violation("\(instance.label).resolve() after the shutdown threw \(error)")
            }
        }
        do {
            _ = try container.resolve(.checker(0))
            world.violation("resolve() read a value after the shutdown")
        } catch let error as ContainerError where error.code == .shutDown {
        } catch {
            world.violation("resolve() after the shutdown threw \(error)")
        }
        let status = container.status
        if status.state != .shutDown && (returned || status.state != .shuttingDown) {
            world.violation("the status says \(status.state) after the shutdown")
        }
        if returned && (status.waitingCallers != 0 || !status.unreportedTeardowns.isEmpty) {
            world.violation(
                "after the shutdown returned: \(status.waitingCallers) callers wait, "
                    + "\(status.unreportedTeardowns.count) teardowns unreported")
        }
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
        label: String, mode: CheckerPlan.CancelMode, alreadyCancelled: Bool = false, afterShutdown: Bool,
        in instance: ScopeInstance? = nil
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
                    // Each coordinator's build reports its own nodes: the app's, an instance's, its parent's.
                    world.sawPermanentFailure(
                        label: plan.owner(of: report, askedOf: instance?.label), generation: error.generation)
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
            afterShutdown: afterShutdown, startedAt: startedAt, task: task,
            incarnations: world.state.withLock { $0.incarnations })
    }
}

private func resetResult(_ body: () async throws -> ServiceContainer.ResetReport) async -> Result<
    ServiceContainer.ResetReport, ContainerError
> {
    do {
        return .success(try await body())
    } catch let error as ContainerError {
        return .failure(error)
    } catch {
        return .failure(.shutDown(generation: -1))  // not thrown by reset() or shutdown()
    }
}
