import ContainerTesting
import Synchronization
import Testing

@testable import Container

/// An operation's first step reaches every scope instance it concerns, and every instance below
/// them: a shutdown's refuses their calls, a reset's stops those holding a value it retired.
/// An instance may be closing already (its own close, or a reload's) without having told its
/// nested instances yet, or without having been told itself: the operation must still reach them.
/// Each test starts the operation inside the cancellation handler of a provider, which runs
/// exactly in that window (the close has cancelled the instance's build and not yet gone on).
@Suite("Operations reach instances that are closing, and those nested in them")
struct ClosingParentTests {
    private static let held = ServiceKey<Int>("held")
    private static let inner = ServiceKey<Int>("inner")

    /// What the nested instance answered right after the shutdown's first step.
    private enum Answer: Equatable {
        case value
        case error(ContainerError.Code)
    }

    /// A provider that waits until its build is cancelled, then runs ``action`` in its
    /// cancellation handler: on the thread of the close that cancelled it, after the close's
    /// first step and before the close tells its nested instances.
    private final class CloseWindow: Sendable {
        let started = Gate()
        let never = Gate()
        /// Opened once ``action`` returned.
        let acted = Gate()
        let handlerRuns = Counter()
        /// Set once the instances are open (the handler runs only after that).
        let action = Mutex<(@Sendable () -> Void)?>(nil)
        /// What ``resetThenRead(_:_:_:)``'s reads answered.
        let answers = Mutex<[Answer]>([])

        /// In the window: resets `container`, then reads `key` in `instance` (right after the
        /// reset's first step).
        func resetThenRead(_ container: ServiceContainer, _ instance: ScopeInstance, _ key: ServiceKey<Int>) {
            action.withLock {
                $0 = { [self] in
                    container.core.beginReset(invalidating: nil) { _ in }
                    let answer = ClosingParentTests.answer(instance, key)
                    answers.withLock { $0.append(answer) }
                }
            }
        }

        /// The provider's body.
        func hold() async throws -> Int {
            try await withTaskCancellationHandler {
                started.open()
                try await never.cancellableWait()
                return 0
            } onCancel: {
                _ = handlerRuns.increment()
                // Taken: it runs once, and no longer holds what it captured (this window too).
                if let action = action.withLock({ $0.take() }) { action() }
                acted.open()
            }
        }
    }

    @Test("The nested instance refuses calls with closed once the shutdown's first step returned")
    func shutdownThroughAClosingInstance() async throws {
        let window = CloseWindow()
        let watcher = TraceWatcher()
        let answers = Mutex<[Answer]>([])
        let endsTraced = Mutex<[String]>([])
        let shutdownResults = Counter()
        let shutdownDone = Gate()
        let specs = [
            ServiceSpec(Self.held, lifetime: .scope("s")) { _ in try await window.hold() },
            ServiceSpec(Self.inner, lifetime: .scope("t")) { _ in 1 },
        ]
        let graph = try ServiceGraph(specs, scopes: ["s", .init("t", parent: "s")])
        let container = ServiceContainer(graph: graph, trace: [watcher])
        let outer = try container.openScope("s", id: "i1")
        let nested = try outer.openScope("t", id: "j0")
        // The outer instance's close cancels `held`: the app's shutdown begins right there, and
        // must find the nested instance refusing calls on return.
        window.action.withLock {
            $0 = {
                container.core.beginShutdown(error: .shutDown(generation: 1)) { _ in
                    _ = shutdownResults.increment()
                    shutdownDone.open()
                }
                let answer = Self.answer(nested, Self.inner)
                answers.withLock { $0.append(answer) }
                endsTraced.withLock { $0 = Self.ends(in: watcher.events) }
            }
        }
        defer { window.never.open() }

        let request = Task { try await outer.start() }
        try await window.started.wait(timeout: .seconds(60), "held to start")
        _ = try await withTimeout(.seconds(60), "the outer close") { try await outer.close() }
        try await window.acted.wait(timeout: .seconds(60), "the shutdown's first step")
        #expect(answers.withLock { $0 } == [.error(.closed)], "the shutdown reached the nested instance")
        // The closing instance's close is traced by whichever step returns first, after its nested one's.
        #expect(endsTraced.withLock { $0 } == ["scope.closed s#i1/t#j0", "scope.closed s#i1", "container.shutdown"])

        let requested = try await withTimeout(.seconds(60), "the request") { await request.result }
        #expect(throws: ContainerError.self) { try requested.get() }
        // The shutdown completes once both instances have ended.
        try await shutdownDone.wait(timeout: .seconds(60), "the shutdown to complete")
        #expect(window.handlerRuns.count == 1, "held was cancelled once")
        #expect(shutdownResults.count == 1, "the first shutdown completed once")
        let closed = watcher.events.filter { $0.kind.name == "scope.closed" }.compactMap(\.scope)
        #expect(closed.sorted() == ["s#i1", "s#i1/t#j0"], "each instance closed once")
        let shutdowns = watcher.events.filter { $0.kind.name == "container.shutdown" }
        #expect(shutdowns.count == 1)
    }

    /// The ends traced so far (`scope.closed` with its instance, `container.shutdown`), in order.
    private static func ends(in events: [TraceEvent]) -> [String] {
        events.compactMap { event in
            switch event.kind.name {
            case "scope.closed": "scope.closed \(event.scope ?? "")"
            case "container.shutdown": "container.shutdown"
            default: nil
            }
        }
    }

    /// Reads `held` in scope `s`.
    private struct HeldEntry: EntryPoint {
        let id = "held-reader"
        let scope: String? = "s"
        var requirements: [AnyServiceKey] { [ClosingParentTests.held.erased] }
        func run(_ services: ScopedServices) async throws {}
    }

    private static let app = ServiceKey<Int>("app")
    private static let scoped = ServiceKey<Int>("scoped")

    /// How a scope instance answered a read of `key` right after an operation's first step.
    private static func answer(_ instance: ScopeInstance, _ key: ServiceKey<Int>) -> Answer {
        do {
            _ = try instance.resolve(key)
            return .value
        } catch let error as ContainerError {
            return .error(error.code)
        } catch {
            return .error(.notReady)
        }
    }

    @Test("A reset reaches an instance that a reload is closing but has not told yet: it no longer answers")
    func resetReachesAnInstanceMarkedClosing() async throws {
        let window = CloseWindow()
        let specs = [
            ServiceSpec(Self.app) { _ in 1 },
            ServiceSpec(Self.held, lifetime: .scope("s")) { context in
                // Only the first instance's build waits; the second one's is built at once.
                guard context.scopeInstance == "s#first" else { return 0 }
                return try await window.hold()
            },
            ServiceSpec(Self.scoped, dependsOn: ["app"], lifetime: .scope("s")) { context in
                try context[Self.app] + 1
            },
        ]
        let container = ServiceContainer(graph: try ServiceGraph(specs, scopes: ["s"]))
        let first = try container.openScope("s", id: "first")
        let later = try container.openScope("s", id: "later")
        _ = try await withTimeout(.seconds(60), "the later instance's start") { try await later.start() }
        #expect(Self.answer(later, Self.scoped) == .value)
        // The reload closes `first`, then `later`: between the two, the app is reset, retiring
        // `app`, which `later` holds through `scoped`.
        window.resetThenRead(container, later, Self.scoped)
        defer { window.never.open() }

        let request = Task { try await first.start() }
        try await window.started.wait(timeout: .seconds(60), "held to start")
        // A reload that removes scope `s` closes both instances, one after the other.
        let withoutScope = try ServiceGraph([ServiceSpec(Self.app) { _ in 1 }])
        let reload = Task { try await container.reload(withoutScope) }
        try await window.acted.wait(timeout: .seconds(60), "the reset's first step")
        #expect(
            window.answers.withLock { $0 } == [.error(.closed)],
            "an instance holding a retired value answers nothing built on it once the reset's step returned")

        _ = try await withTimeout(.seconds(60), "the reload") { try await reload.value }
        _ = try await withTimeout(.seconds(60), "the request") { await request.result }
        #expect(window.handlerRuns.count == 1)
        #expect(container.openScopes.isEmpty, "both instances ended")
        try await container.shutdown()
    }

    @Test("A reset refused by a closing instance still reaches the instances nested in it")
    func resetRefusedByAClosingInstance() async throws {
        let window = CloseWindow()
        let specs = [
            ServiceSpec(Self.app) { _ in 1 },
            // Lazy: the nested instance starts without it; the outer one's entry point asks for it.
            ServiceSpec(Self.held, lifetime: .scope("s"), start: .lazy) { _ in try await window.hold() },
            ServiceSpec(Self.scoped, dependsOn: ["app"], lifetime: .scope("t")) { context in
                try context[Self.app] + 1
            },
        ]
        let graph = try ServiceGraph(specs, scopes: ["s", .init("t", parent: "s")])
        let container = ServiceContainer(graph: graph)
        let outer = try container.openScope("s", id: "i1")
        let nested = try outer.openScope("t", id: "j0")
        _ = try await withTimeout(.seconds(60), "the nested start") { try await nested.start() }
        #expect(Self.answer(nested, Self.scoped) == .value)
        // The outer instance's own close cancels `held` before it tells its nested instance: the
        // app is reset there, retiring `app`, which the nested one uses.
        window.resetThenRead(container, nested, Self.scoped)
        defer { window.never.open() }

        let request = Task { try await outer.run(HeldEntry()) }
        try await window.started.wait(timeout: .seconds(60), "held to start")
        _ = try await withTimeout(.seconds(60), "the outer close") { try await outer.close() }
        try await window.acted.wait(timeout: .seconds(60), "the reset's first step")
        #expect(
            window.answers.withLock { $0 } == [.error(.closed)],
            "the nested instance answers nothing built on the retired value once the reset's step returned")

        _ = try await withTimeout(.seconds(60), "the request") { await request.result }
        #expect(window.handlerRuns.count == 1)
        #expect(container.openScopes.isEmpty)
        try await container.shutdown()
    }

    @Test("A close completes only once it is traced: a shutdown begun as it completes is traced after it")
    func closeCompletesAfterItsTrace() async throws {
        let watcher = TraceWatcher()
        let graph = try ServiceGraph(
            [ServiceSpec(Self.inner, lifetime: .scope("t")) { _ in 1 }], scopes: ["s", .init("t", parent: "s")])
        let container = ServiceContainer(graph: graph, trace: [watcher])
        let outer = try container.openScope("s", id: "i1")
        _ = try outer.openScope("t", id: "j0")
        let ends = Mutex<[String]>([])
        let completions = Counter()
        let closed = Gate()
        // Nothing to tear down and no build: the close completes as soon as its nested instance
        // ended, on this thread, inside its own step.
        outer.core.beginShutdown(error: .closed(outer.label)) { _ in
            _ = completions.increment()
            container.core.beginShutdown(error: .shutDown(generation: 1)) { _ in }
            ends.withLock { $0 = Self.ends(in: watcher.events) }
            closed.open()
        }
        try await closed.wait(timeout: .seconds(60), "the close to complete")
        #expect(ends.withLock { $0 } == ["scope.closed s#i1/t#j0", "scope.closed s#i1", "container.shutdown"])
        #expect(completions.count == 1)
    }
}
