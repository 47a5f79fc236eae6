import ContainerTesting
import Synchronization
import Testing

@testable import Container

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A caller's `start()` runs a build of quick nodes alone on its own thread
/// (``CoordinatorEnvironment/startsOnLaunchingThread(_:)``), and the ticket of such a build
/// applies a cancellation that comes before its task is known.
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

    /// Records `time` as the last run of every service of `part`.
    private func record(_ time: Duration, in part: ServiceGraph) {
        for slot in 0..<part.builtCount { part.runTimes.record(slot, took: time) }
    }

    @Test("An instance of quick services is built on the thread of the caller that starts it")
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
            // The thread is read in the task that calls `start()` (`withTimeout` runs it in a child).
            let (caller, snapshot) = try await withTimeout(.seconds(60), "instance \(round)") {
                let caller = Self.thread()
                return (caller, try await instance.start())
            }
            #expect(try snapshot[ServiceKey<Int>("third")] == 3)
            let threads = ranOn.withLock { $0 }
            #expect(threads == [caller, caller, caller], "round \(round): every provider ran on the caller's thread")
            // Its own runs recorded real times; the test keeps them quick on any machine.
            record(.microseconds(1), in: part)
            try await instance.close()
        }
    }

    @Test("Which builds start on the launching thread: small, all quick, untraced, continuing")
    func whichBuildsStartHere() throws {
        let graph = try graph(ranOn: Locked([]))
        let part = try #require(graph.scopeParts["push"])
        func environment(_ policy: BuildPolicy = .default, traced: Bool = false) -> CoordinatorEnvironment {
            CoordinatorEnvironment(
                policy: policy, tracer: Tracer(sinks: traced ? [TraceWatcher()] : []), redactor: Redactor())
        }
        #expect(!environment().startsOnLaunchingThread(part), "never ran: unknown times")
        record(.microseconds(5), in: part)
        #expect(environment().startsOnLaunchingThread(part), "3 × 5 µs within 20 µs")
        #expect(!environment(traced: true).startsOnLaunchingThread(part))
        #expect(!environment(.failFast).startsOnLaunchingThread(part))
        #expect(!environment(BuildPolicy(inlineBudget: .zero)).startsOnLaunchingThread(part))
        record(.microseconds(7), in: part)
        #expect(!environment().startsOnLaunchingThread(part), "3 × 7 µs over 20 µs")
        #expect(environment(BuildPolicy(inlineBudget: .microseconds(21))).startsOnLaunchingThread(part))
        // A large graph is never summed.
        let wide = try ServiceGraph((0..<17).map { ServiceSpec(ServiceKey<Int>("s\($0)")) { _ in 1 } })
        for slot in 0..<17 { wide.runTimes.record(slot, took: .nanoseconds(1)) }
        #expect(!environment().startsOnLaunchingThread(wide))
    }

    @Test("A build cancelled before its task is known is cancelled once the task is attached")
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
