import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Container

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A task executor that counts the jobs given to it: a task that prefers it and suspends is
/// resumed through it, so a call that returns without enqueuing a job never suspended.
final class CountingTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "counting-task-executor")
    private let jobs = Atomic<Int>(0)

    /// Jobs enqueued so far.
    var enqueued: Int { jobs.load(ordering: .acquiring) }

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .releasing)
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A caller's `start()` runs a build of quick nodes alone on its own thread (the state machine
/// says so in the launch it returns), and a build's ticket applies a cancellation that comes
/// before its task is known.
// Starting a task on the caller's thread exists from the OS 26 releases on (older ones fall back
// to a detached task, which these tests would see; they skip them).
@Suite("Builds of quick nodes start on the caller's thread")
struct LaunchingThreadTests {
    /// The calling thread's identity.
    private static func thread() -> UInt { UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))) }

    private static let app = ServiceKey<Int>("app")

    /// An app service and a `push` scope of three services (`first` reads the app service,
    /// `second` and `third` read `first`); the scoped providers note the thread they ran on.
    private func graph(ranOn: Locked<[UInt]>) throws -> ServiceGraph {
        func scoped(_ name: String, _ dependency: String) -> ServiceSpec {
            ServiceSpec(ServiceKey<Int>(name), dependsOn: [dependency], lifetime: .scope("push")) { context in
                let thread = Self.thread()
                ranOn.withLock { $0.append(thread) }
                return try context[ServiceKey<Int>(dependency)] + 1
            }
        }
        return try ServiceGraph(
            [
                ServiceSpec(Self.app) { _ in 1 }, scoped("first", "app"), scoped("second", "first"),
                scoped("third", "first"),
            ], scopes: ["push"])
    }

    /// Runs `start` in a task that prefers a ``CountingTaskExecutor``; returns the thread it
    /// called from, how many times it was resumed (0: it never suspended), and what it returned.
    private static func start(
        _ round: Int, _ start: @escaping @Sendable () async throws -> AppServices
    ) async throws -> (thread: UInt, resumptions: Int, services: AppServices) {
        let executor = CountingTaskExecutor()
        return try await withTimeout(.seconds(60), "round \(round)") {
            try await withTaskExecutorPreference(executor) {
                let before = executor.enqueued
                let caller = thread()
                let services = try await start()
                return (caller, executor.enqueued - before, services)
            }
        }
    }

    /// Records `time` as the last run of every service of `container`'s scope `push`.
    private func record(_ time: Duration, inScopeOf container: ServiceContainer) throws {
        let times = try #require(container.core.scopeRunTimes("push"))
        let part = try #require(container.graph.scopeParts["push"])
        for slot in 0..<part.builtCount { times.record(slot, took: time) }
    }

    @Test("An instance of quick services is built on the thread of the caller that starts it")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func quickInstanceBuildsOnCallersThread() async throws {
        let ranOn = Locked<[UInt]>([])
        let graph = try graph(ranOn: ranOn)
        let container = ServiceContainer(graph: graph)
        _ = try await container.start()
        try record(.microseconds(1), inScopeOf: container)
        for round in 0..<20 {
            let instance = try container.openScope("push", id: "n-\(round)")
            ranOn.withLock { $0.removeAll() }
            let (caller, resumptions, snapshot) = try await Self.start(round) { try await instance.start() }
            #expect(try snapshot[ServiceKey<Int>("third")] == 3)
            #expect(resumptions == 0, "round \(round): the caller never suspended")
            let threads = ranOn.withLock { $0 }
            #expect(threads == [caller, caller, caller], "round \(round): every provider ran on the caller's thread")
            // Its own runs recorded real times; the test keeps them quick on any machine.
            try record(.microseconds(1), inScopeOf: container)
            try await instance.close()
        }
    }

    @Test("A caller whose quick build now blocks its own thread gets CancellationError once, when the provider returns")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func cancelledWhileItsBuildBlocksItsThread() async throws {
        // The corner the Coordinator rules name (rule 5): the build starts on the caller's
        // thread because its node was quick last time; this time the provider blocks that thread.
        let blocking = Atomic<Bool>(false)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let runs = Atomic<Int>(0)
        let ranOn = Locked<UInt?>(nil)
        let key = ServiceKey<Int>("blocker")
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(Self.app) { _ in 1 },
                    ServiceSpec(key, dependsOn: ["app"], lifetime: .scope("push")) { context in
                        runs.add(1, ordering: .relaxed)
                        let thread = Self.thread()
                        ranOn.withLock { $0 = thread }
                        if blocking.load(ordering: .acquiring) {
                            started.signal()
                            // Blocks the thread (no suspension) until the test lets it go.
                            _ = release.wait(timeout: .now() + 60)
                        }
                        return try context[Self.app] + 1
                    },
                ], scopes: ["push"]))
        _ = try await container.start()
        // A first instance makes the scope's run times known; they are then set quick.
        let first = try container.openScope("push", id: "first")
        _ = try await withTimeout(.seconds(60), "the first instance") { try await first.start() }
        try record(.microseconds(1), inScopeOf: container)
        #expect(runs.load(ordering: .relaxed) == 1)

        blocking.store(true, ordering: .releasing)
        let instance = try container.openScope("push", id: "second")
        let callerThread = Locked<UInt?>(nil)
        // The caller prefers a counting executor: a caller that suspended is resumed through it.
        let executor = CountingTaskExecutor()
        let caller = Task { () -> (resumptions: Int, cancelled: Bool) in
            await withTaskExecutorPreference(executor) {
                callerThread.withLock { $0 = Self.thread() }
                let before = executor.enqueued
                do {
                    _ = try await instance.start()
                    return (executor.enqueued - before, false)
                } catch {
                    return (executor.enqueued - before, error is CancellationError)
                }
            }
        }
        // Off the cooperative pool: cancel the caller once its provider blocks, then release it.
        let cancelled = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            guard started.wait(timeout: .now() + 60) == .success else { return }
            caller.cancel()
            cancelled.signal()
            release.signal()
        }
        let outcome = try await withTimeout(.seconds(60), "the cancelled caller") { await caller.value }
        #expect(cancelled.wait(timeout: .now()) == .success, "the provider blocked and the caller was cancelled")
        #expect(outcome.cancelled, "the caller got CancellationError, not the snapshot")
        // It never suspended: the build ran nested in its call, and the cancellation (which
        // resumed it at once) could take effect only when the provider returned.
        #expect(outcome.resumptions == 0)
        #expect(ranOn.withLock { $0 } == callerThread.withLock { $0 }, "the provider ran on the caller's thread")
        // The build went on for the others: a new request gets the value, with no second run.
        let services = try await withTimeout(.seconds(60), "a second request") { try await instance.start() }
        #expect(try services[key] == 2)
        #expect(runs.load(ordering: .relaxed) == 2, "once for each instance")
        try await instance.close()
        try await first.close()
    }

    /// A state machine of `graph`, with `tuning` and `policy`.
    private static func machine(
        _ graph: ServiceGraph, policy: BuildPolicy = .default, tuning: SchedulerTuning = .default, traced: Bool = false
    ) -> CoordinatorStateMachine<Int, Int, Int> {
        CoordinatorStateMachine(
            declared: graph,
            tickets: TicketFactory(
                policy: policy, tuning: tuning, tracer: Tracer(sinks: traced ? [TraceWatcher()] : []),
                redactor: Redactor(), scopeInstance: nil, parameters: ScopeParameters()))
    }

    /// Whether a caller's request of every service of `machine` starts its build on the caller's
    /// thread, each node having last taken `time`.
    private static func startsHere(
        _ machine: CoordinatorStateMachine<Int, Int, Int>, took time: Duration?, key: DemandBook<Int>.Key = .eager
    ) -> Bool {
        var machine = machine
        if let time { for slot in machine.graph.nodes.indices { machine.state.runTimes.record(slot, took: time) } }
        guard
            case .park(_, let start) = machine.requested(
                key, caller: 1, label: "", waiter: 1, priority: 21, isCancelled: false, now: .zero),
            let launch = start.launch
        else { return false }
        return launch.startsHere
    }

    @Test("Which builds start on the caller's thread: few nodes, all quick, continuing (traced or not)")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func whichBuildsStartHere() throws {
        let three = try ServiceGraph((0..<3).map { ServiceSpec(ServiceKey<Int>("s\($0)")) { _ in 1 } })
        #expect(!Self.startsHere(Self.machine(three), took: nil), "never ran: unknown times")
        #expect(Self.startsHere(Self.machine(three), took: .microseconds(5)), "3 × 5 µs within 20 µs")
        #expect(Self.startsHere(Self.machine(three, traced: true), took: .microseconds(5)), "tracing changes nothing")
        #expect(!Self.startsHere(Self.machine(three, policy: .failFast), took: .microseconds(5)))
        #expect(!Self.startsHere(Self.machine(three, tuning: .off), took: .microseconds(5)))
        #expect(!Self.startsHere(Self.machine(three), took: .microseconds(7)), "3 × 7 µs over 20 µs")
        #expect(
            Self.startsHere(
                Self.machine(three, tuning: SchedulerTuning(inlineBudget: .microseconds(21))), took: .microseconds(7)))
        // A build of more than 16 nodes is never summed; a request of a few of them is.
        let wide = try ServiceGraph((0..<17).map { ServiceSpec(ServiceKey<Int>("s\($0)")) { _ in 1 } })
        #expect(!Self.startsHere(Self.machine(wide), took: .nanoseconds(1)))
        #expect(Self.startsHere(Self.machine(wide), took: .nanoseconds(1), key: .roots([3, 16])))
    }

    @Test("A reset or reload of one leaf of a large graph of quick services rebuilds it on the caller's thread")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func oneLeafOfLargeGraph() async throws {
        let ranOn = Locked<[String: UInt]>([:])
        func specs(version: Int) -> [ServiceSpec] {
            (0..<100).map { index in
                let name = "s\(index)"
                var spec = ServiceSpec(
                    name: name,
                    provider: ClosureProvider(id: "closure") { _ in
                        let thread = Self.thread()
                        ranOn.withLock { $0[name] = thread }
                        return index
                    }, dependsOn: index == 0 ? [] : ["s\(index - 1)"])
                if index == 99 { spec.options = ServiceOptions(["version": .int(version)]) }
                return spec
            }
        }
        let container = ServiceContainer(graph: try ServiceGraph(specs(version: 1)))
        _ = try await withTimeout(.seconds(60), "the first build") { try await container.start() }
        let slots = 0..<100
        for round in 0..<10 {
            // The real times of the last build could exceed the budget on a slow machine.
            for slot in slots { container.core.runTimes.record(slot, took: .microseconds(1)) }
            ranOn.withLock { $0.removeAll() }
            if round % 2 == 0 {
                _ = try await container.reset(invalidating: ["s99"])
            } else {
                _ = try await container.reload(try ServiceGraph(specs(version: round + 1)))
                for slot in slots { container.core.runTimes.record(slot, took: .microseconds(1)) }
            }
            let (caller, resumptions, services) = try await Self.start(round) { try await container.start() }
            #expect(try services[ServiceKey<Int>("s99")] == 99)
            #expect(resumptions == 0, "round \(round): the caller never suspended")
            #expect(
                ranOn.withLock { $0 } == ["s99": caller], "round \(round): only s99 rebuilt, on the caller's thread")
        }
    }

    @Test("A build cancelled before its task is known is cancelled once the task is attached")
    func cancellationBeforeAttach() async throws {
        let graph = try graph(ranOn: Locked([]))
        for cancelFirst in [true, false] {
            let started = Gate()
            let sawCancellation = Gate()
            let finished = Gate()
            let ticket = BuildTicket(
                id: 1, build: BuildAttempt(generation: 1, attempt: 1), graph: graph,
                info: ProviderContext.BuildInfo(
                    generation: 1, attempt: 1, scopeInstance: nil, parameters: ScopeParameters(), redactor: Redactor(),
                    values: BuildValues(base: SlotValues(), count: graph.nodes.count)),
                policy: .default, tracer: Tracer(sinks: []), runTimes: NodeRunTimes(count: graph.nodes.count),
                inlineBudget: 0, priority: TaskPriority.medium.rawValue)
            if cancelFirst { ticket.cancel() }
            ticket.spawn {
                started.open()
                await withTaskCancellationHandler {
                    try? await Gate().cancellableWait()
                } onCancel: {
                    sawCancellation.open()
                }
                finished.open()
            }
            try await started.wait(timeout: .seconds(60), "the task to start")
            if !cancelFirst { ticket.cancel() }
            try await sawCancellation.wait(timeout: .seconds(60), "the cancellation (cancelled first: \(cancelFirst))")
            try await finished.wait(timeout: .seconds(60), "the task to end")
            #expect(ticket.isCancelled)
        }
    }
}
