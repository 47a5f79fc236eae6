import ContainerTesting
import Dispatch
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

/// A caller's `start()` runs a build of quick nodes alone on its own thread
/// (``CoordinatorEnvironment/startsOnLaunchingThread(_:)``), and the ticket of such a build
/// applies a cancellation that comes before its task is known.
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

    /// Records `time` as the last run of every service of `part`.
    private func record(_ time: Duration, in part: ServiceGraph) {
        for slot in 0..<part.builtCount { part.runTimes.record(slot, took: time) }
    }

    @Test("An instance of quick services is built on the thread of the caller that starts it")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func quickInstanceBuildsOnCallersThread() async throws {
        let ranOn = Locked<[UInt]>([])
        let graph = try graph(ranOn: ranOn)
        let part = try #require(graph.scopeParts["push"])
        let container = ServiceContainer(graph: graph)
        _ = try await container.start()
        record(.microseconds(1), in: part)
        for round in 0..<20 {
            let instance = try container.openScope("push", id: "n-\(round)")
            ranOn.withLock { $0.removeAll() }
            let (caller, resumptions, snapshot) = try await Self.start(round) { try await instance.start() }
            #expect(try snapshot[ServiceKey<Int>("third")] == 3)
            #expect(resumptions == 0, "round \(round): the caller never suspended")
            let threads = ranOn.withLock { $0 }
            #expect(threads == [caller, caller, caller], "round \(round): every provider ran on the caller's thread")
            // Its own runs recorded real times; the test keeps them quick on any machine.
            record(.microseconds(1), in: part)
            try await instance.close()
        }
    }

    /// A ticket for a build of `graph` (`missing`: the slots the coordinator knows are to build).
    private static func ticket(_ graph: ServiceGraph, missing: [Int]? = nil) -> BuildTicket {
        BuildTicket(
            id: 1, build: BuildAttempt(generation: 1, attempt: 1), graph: graph, kept: SlotValues(),
            earlierRuns: [], priority: TaskPriority.medium.rawValue, missingSlots: missing)
    }

    @Test("Which builds start on the launching thread: few nodes, all quick, untraced, continuing")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func whichBuildsStartHere() throws {
        let graph = try graph(ranOn: Locked([]))
        let part = Self.ticket(try #require(graph.scopeParts["push"]))
        func environment(_ policy: BuildPolicy = .default, traced: Bool = false) -> CoordinatorEnvironment {
            CoordinatorEnvironment(
                policy: policy, tracer: Tracer(sinks: traced ? [TraceWatcher()] : []), redactor: Redactor())
        }
        #expect(!environment().startsOnLaunchingThread(part), "never ran: unknown times")
        record(.microseconds(5), in: part.graph)
        #expect(environment().startsOnLaunchingThread(part), "3 × 5 µs within 20 µs")
        #expect(!environment(traced: true).startsOnLaunchingThread(part))
        #expect(!environment(.failFast).startsOnLaunchingThread(part))
        #expect(!environment(BuildPolicy(inlineBudget: .zero)).startsOnLaunchingThread(part))
        record(.microseconds(7), in: part.graph)
        #expect(!environment().startsOnLaunchingThread(part), "3 × 7 µs over 20 µs")
        #expect(environment(BuildPolicy(inlineBudget: .microseconds(21))).startsOnLaunchingThread(part))
        // A large graph is never summed whole; the few slots the coordinator knows are missing are.
        let wide = try ServiceGraph((0..<17).map { ServiceSpec(ServiceKey<Int>("s\($0)")) { _ in 1 } })
        for slot in 0..<17 { wide.runTimes.record(slot, took: .nanoseconds(1)) }
        #expect(!environment().startsOnLaunchingThread(Self.ticket(wide)))
        #expect(environment().startsOnLaunchingThread(Self.ticket(wide, missing: [3, 16])))
        #expect(!environment().startsOnLaunchingThread(Self.ticket(wide, missing: Array(0..<17))))
        wide.runTimes.record(16, took: .milliseconds(1))
        #expect(!environment().startsOnLaunchingThread(Self.ticket(wide, missing: [3, 16])))
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
            for slot in slots { container.graph.runTimes.record(slot, took: .microseconds(1)) }
            ranOn.withLock { $0.removeAll() }
            if round % 2 == 0 {
                _ = try await container.reset(invalidating: ["s99"])
            } else {
                _ = try await container.reload(try ServiceGraph(specs(version: round + 1)))
                for slot in slots { container.graph.runTimes.record(slot, took: .microseconds(1)) }
            }
            let (caller, resumptions, services) = try await Self.start(round) { try await container.start() }
            #expect(try services[ServiceKey<Int>("s99")] == 99)
            #expect(resumptions == 0, "round \(round): the caller never suspended")
            #expect(
                ranOn.withLock { $0 } == ["s99": caller], "round \(round): only s99 rebuilt, on the caller's thread")
        }
    }

    @Test("A build cancelled before its task is known is cancelled once the task is attached")
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func cancellationBeforeAttach() async throws {
        let graph = try graph(ranOn: Locked([]))
        func ticket() -> BuildTicket {
            BuildTicket(
                id: 1, build: BuildAttempt(generation: 1, attempt: 1), graph: graph, kept: SlotValues(),
                earlierRuns: [], priority: TaskPriority.medium.rawValue)
        }
        for cancelFirst in [true, false] {
            let started = Gate()
            let sawCancellation = Gate()
            let early = ticket()
            if cancelFirst { early.cancelTask() }
            let task = Task {
                started.open()
                await withTaskCancellationHandler {
                    try? await Gate().cancellableWait()
                } onCancel: {
                    sawCancellation.open()
                }
            }
            try await started.wait(timeout: .seconds(60), "the task to start")
            early.attach(task)
            if !cancelFirst { early.cancelTask() }
            try await sawCancellation.wait(timeout: .seconds(60), "the cancellation (cancelled first: \(cancelFirst))")
            #expect(task.isCancelled)
            await task.value
        }
    }
}
