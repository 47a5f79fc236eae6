import Container
import ContainerTesting
import Testing

/// A real container run with a trace: a transient failure and its retry, a reset, a caller
/// cancelled while it waits, a build cancelled by a reset (its node while running, its waiter
/// superseded), then a last build and the shutdown. Ordered with gates, never with sleeps.
enum RealRun {
    struct Flaky: ClassifiedError {
        var failureKind: FailureKind { .transient }
    }

    /// Runs the story and returns its trace and graph.
    static func run() async throws -> (events: [TraceEvent], graph: ServiceGraph) {
        let trace = TraceWatcher()
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
            ], trace: [trace])
        try await withTimeout(.seconds(60), "the real run") {
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
            try await trace.wait(for: "first to join") { $0.contains { $0.kind.caller == "first" } }
            let impatient = Task { try await container.start(as: "impatient") }
            try await trace.wait(for: "impatient to join") { $0.contains { $0.kind.caller == "impatient" } }
            impatient.cancel()
            #expect(await impatient.result.isCancellation)
            holdInG2.open()
            _ = try await first.value
            // Generation 3: a reset cancels the build while b runs; its waiter is superseded.
            _ = try await container.reset(invalidating: ["b"])
            let superseded = Task { try await container.start(as: "superseded") }
            try await trace.wait(for: "superseded to join") { $0.contains { $0.kind.caller == "superseded" } }
            await startedInG3.wait()
            _ = try await container.reset()
            #expect((try? await superseded.value) == nil)
            holdInG3.open()
            _ = try await container.start(as: "last")
            _ = try await container.shutdown()
        }
        return (trace.events, container.graph)
    }
}

extension Result {
    fileprivate var isCancellation: Bool {
        if case .failure(let error) = self { return error is CancellationError }
        return false
    }
}
