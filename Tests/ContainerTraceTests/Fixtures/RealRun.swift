import Container
import ContainerTesting
import Synchronization
import Testing

/// A real container run with a trace: a transient failure and its retry, a reset, a caller
/// cancelled while it waits, a build cancelled by a reset (its node while running, its waiter
/// superseded), then a last build and the shutdown. Ordered with gates, never with sleeps.
enum RealRun {
    struct Flaky: ClassifiedError {
        var failureKind: FailureKind { .transient }
    }

    /// Opens a gate when a caller called `name` has joined.
    final class JoinSignal: TraceSink {
        private let watched = Locked<[String: Gate]>([:])

        func gate(for caller: String) -> Gate {
            watched.withLock { gates in
                if let gate = gates[caller] { return gate }
                let gate = Gate()
                gates[caller] = gate
                return gate
            }
        }

        func record(_ event: TraceEvent) {
            guard case .callerJoined(let caller, _) = event.kind else { return }
            gate(for: caller).open()
        }
    }

    /// Runs the story and returns its trace and graph.
    static func run() async throws -> (events: [TraceEvent], graph: ServiceGraph) {
        let recorder = TraceRecorder()
        let joins = JoinSignal()
        let runsOfB = Counter()
        let holdInG2 = Gate()
        let holdInG3 = Gate()
        let startedInG3 = Gate()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"], tearDown: { _ in }) { context in
                    if runsOfB.increment() == 1 { throw Flaky() }
                    if context.generation == 2 { try await holdInG2.cancellableWait() }
                    if context.generation == 3 {
                        startedInG3.open()
                        try await holdInG3.cancellableWait()
                    }
                    return 2
                },
                ServiceSpec(ServiceKey<Int>("c"), dependsOn: ["b"], tearDown: { _ in }) { _ in 3 },
                ServiceSpec(ServiceKey<Int>("d")) { _ in 4 },
            ], trace: [recorder, joins])
        try await withTimeout(.seconds(30), "the real run") {
            // Attempt 1 fails transiently for three callers; attempt 2 reuses a and d.
            await withTaskGroup(of: Void.self) { group in
                for caller in ["launch", "scene", "push"] {
                    group.addTask { _ = try? await container.start(as: caller) }
                }
            }
            _ = try await container.start(as: "launch")
            _ = try await container.reset(invalidating: ["b"])
            // Generation 2: a caller is cancelled while the build waits for b.
            let first = Task { try await container.start(as: "first") }
            await joins.gate(for: "first").wait()
            let impatient = Task { try await container.start(as: "impatient") }
            await joins.gate(for: "impatient").wait()
            impatient.cancel()
            #expect(await impatient.result.isCancellation)
            holdInG2.open()
            _ = try await first.value
            // Generation 3: a reset cancels the build while b runs; its waiter is superseded.
            _ = try await container.reset(invalidating: ["b"])
            let superseded = Task { try await container.start(as: "superseded") }
            await joins.gate(for: "superseded").wait()
            await startedInG3.wait()
            _ = try await container.reset()
            #expect((try? await superseded.value) == nil)
            holdInG3.open()
            _ = try await container.start(as: "last")
            _ = try await container.shutdown()
        }
        return (recorder.events, container.graph)
    }
}

extension Result {
    fileprivate var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
