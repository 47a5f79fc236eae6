import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// A shutdown's first step refuses every call, in every scope instance below it. One instance
/// may be closing already (its own close, or a reload's) without having told its nested
/// instances yet: the shutdown's close, refused there, must still reach them.
@Suite("A shutdown reaches the instances nested in one that is closing")
struct ClosingParentTests {
    private static let held = ServiceKey<Int>("held")
    private static let inner = ServiceKey<Int>("inner")

    /// What the nested instance answered right after the shutdown's first step.
    private enum Answer: Equatable {
        case value
        case error(ContainerError.Code)
    }

    @Test("The nested instance refuses calls with closed once the shutdown's first step returned")
    func shutdownThroughAClosingInstance() async throws {
        let started = Gate()
        let never = Gate()
        let handlerRuns = Counter()
        let shutdownBegun = Gate()
        // Set once the instances are open (the handler runs only after that).
        let parts = Mutex<(container: ServiceContainer, nested: ScopeInstance)?>(nil)
        let answers = Mutex<[Answer]>([])
        let shutdownResults = Counter()
        let shutdownDone = Gate()
        let specs = [
            ServiceSpec(Self.held, lifetime: .scope("s")) { _ in
                try await withTaskCancellationHandler {
                    started.open()
                    try await never.cancellableWait()
                    return 0
                } onCancel: {
                    _ = handlerRuns.increment()
                    // The outer instance's close cancels `held` after its first step and before it
                    // closes its nested instance: the app's shutdown begins right here, on the
                    // same thread, and must find the nested instance refusing calls on return.
                    guard let (container, nested) = parts.withLock({ $0 }) else { return }
                    container.core.beginShutdown(error: .shutDown(generation: 1)) { _ in
                        _ = shutdownResults.increment()
                        shutdownDone.open()
                    }
                    let answer: Answer
                    do {
                        _ = try nested.resolve(Self.inner)
                        answer = .value
                    } catch let error as ContainerError {
                        answer = .error(error.code)
                    } catch {
                        answer = .error(.notReady)
                    }
                    answers.withLock { $0.append(answer) }
                    shutdownBegun.open()
                }
            },
            ServiceSpec(Self.inner, lifetime: .scope("t")) { _ in 1 },
        ]
        let watcher = TraceWatcher()
        let graph = try ServiceGraph(specs, scopes: ["s", .init("t", parent: "s")])
        let container = ServiceContainer(graph: graph, trace: [watcher])
        let outer = try container.openScope("s", id: "i1")
        let nested = try outer.openScope("t", id: "j0")
        parts.withLock { $0 = (container, nested) }
        defer { never.open() }

        let request = Task { try await outer.start() }
        try await started.wait(timeout: .seconds(60), "held to start")
        _ = try await withTimeout(.seconds(60), "the outer close") { try await outer.close() }
        try await shutdownBegun.wait(timeout: .seconds(60), "the shutdown's first step")
        #expect(answers.withLock { $0 } == [.error(.closed)], "the shutdown reached the nested instance")

        let requested = try await withTimeout(.seconds(60), "the request") { await request.result }
        #expect(throws: ContainerError.self) { try requested.get() }
        // The shutdown completes once both instances have ended.
        try await shutdownDone.wait(timeout: .seconds(60), "the shutdown to complete")
        #expect(handlerRuns.count == 1, "held was cancelled once")
        #expect(shutdownResults.count == 1, "the first shutdown completed once")
        let closed = watcher.events.filter { $0.kind.name == "scope.closed" }.compactMap(\.scope)
        #expect(closed.sorted() == ["s#i1", "s#i1/t#j0"], "each instance closed once")
        let shutdowns = watcher.events.filter { $0.kind.name == "container.shutdown" }
        #expect(shutdowns.count == 1)
    }
}
