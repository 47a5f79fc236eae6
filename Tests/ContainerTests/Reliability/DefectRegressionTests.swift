import ContainerTesting
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Container

/// One test per defect found by the outside stress run (issue 8); each failed before its fix.
@Suite("Reliability: regressions of the defects found from outside")
struct DefectRegressionTests {
    /// Runs `body` on a thread of its own (not the cooperative pool), so a test can hold a lock
    /// or a reader section there while the pool goes on.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    @Test("Defect 1: a reset never waits for readers while holding the state lock, nor blocks on a preempted one")
    func resetDoesNotWaitForReaders() async throws {
        let container = try ServiceContainer([ServiceSpec(ServiceKey<Int>("a")) { _ in 1 }])
        weak let old = try await container.start()
        let slot = container.published
        // A reader preempted inside its section: its counter stays up until it leaves.
        let ticket = slot.enterReader()
        // The reset completes anyway: the snapshot's release waits for the reader, not the reset.
        let report = try await withTimeout(.seconds(60), "the reset, with a reader inside its section") {
            try await container.reset()
        }
        #expect(report.to == 2 && container.current == nil)
        #expect(old != nil, "the reader may still be using the old snapshot")
        // The state lock is free meanwhile.
        let acquired = try await withTimeout(.seconds(60), "the state lock while a reader holds the old snapshot") {
            await Self.onThread { container.core._withStateLock { true } }
        }
        #expect(acquired)
        slot.leaveReader(ticket)
        try await withTimeout(.seconds(60), "the retirements") { await slot._drainRetirements() }
        #expect(old == nil, "released once the reader left")
    }

    @Test("Defect 2: resolve() before anything is published does not take the state lock")
    func resolveNotReadyIsLockFree() async throws {
        let container = try ServiceContainer([ServiceSpec(ServiceKey<Int>("a")) { _ in 1 }])
        let release = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        // Another thread holds the state lock until the test releases it.
        Thread.detachNewThread {
            container.core._withStateLock {
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        defer { release.signal() }
        let error = try await withTimeout(.seconds(60), "resolve() while the state lock is held") {
            await Self.onThread { () -> ContainerError? in
                do {
                    _ = try container.resolve(ServiceKey<Int>("a"))
                    return nil
                } catch {
                    return error as? ContainerError
                }
            }
        }
        #expect(error?.code == .notReady && error?.generation == 1)
    }

    @Test("Defect 3: an error that arrives after the timeout keeps its own classification and message")
    func lateErrorAfterTimeout() async throws {
        struct Corrupt: ClassifiedError, CustomStringConvertible {
            var failureKind: FailureKind { .permanent }
            var description: String { "the store is corrupt" }
        }
        let timedOut = Gate()
        let late = Gate()
        let calls = Counter()
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("store"), timeout: .milliseconds(1)) { _ in
                calls.increment()
                // Blocks past its timeout (ignoring the cancellation), then fails for real.
                await withTaskCancellationHandler {
                    await late.wait()
                } onCancel: {
                    timedOut.open()
                }
                throw Corrupt()
            }
        ])
        let first = Task { try await container.start() }
        try await withTimeout(.seconds(60), "the timeout to fire") { await timedOut.wait() }
        late.open()
        let error = try await withTimeout(.seconds(60), "the build") { await first.result }
        guard case .failure(let failure as ContainerError) = error else { return fail("expected a failure") }
        #expect(failure.failure == .permanent)
        guard case .failed(let node)? = failure.report?.outcome(of: "store") else { return fail("store failed") }
        #expect(node.kind == .permanent && node.message == "the store is corrupt")
        // Permanent, so sticky: the provider does not run again.
        await #expect(throws: ContainerError.self) { try await container.start() }
        #expect(calls.count == 1)
    }

    /// `base <- bad`: `bad` fails permanently, and tearing `base` down throws "close failed"
    /// (counted in `tornDown`).
    static func permanentFailureWithFailingTeardown(counting tornDown: Counter) throws -> ServiceContainer {
        try ServiceContainer([
            ServiceSpec(
                ServiceKey<Int>("base"),
                tearDown: { _ in
                    tornDown.increment()
                    throw TestError("close failed")
                }
            ) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("bad"), dependsOn: ["base"]) { _ in throw Classified(failureKind: .permanent) },
        ])
    }

    @Test("Defect 4: a teardown error after a permanent failure is reported by the next reset, untraced")
    func teardownErrorAfterPermanentFailure() async throws {
        let tornDown = Counter()
        let container = try Self.permanentFailureWithFailingTeardown(counting: tornDown)
        await #expect(throws: ContainerError.self) { try await container.start() }
        let report = try await withTimeout(.seconds(60), "the reset") { try await container.reset() }
        #expect(report.failures.map(\.service) == ["base"] && report.failures.first?.error == "close failed")
        #expect(tornDown.count == 1)
        let next = try await container.reset()
        #expect(next.failures.isEmpty, "reported once")
    }

    @Test("Defect 4: the status lists a permanent failure's failed teardown until a reset reports it")
    func unreportedTeardownInStatus() async throws {
        let tornDown = Counter()
        let container = try Self.permanentFailureWithFailingTeardown(counting: tornDown)
        await #expect(throws: ContainerError.self) { try await container.start() }
        // The permanent failure retires `base` with no reset to report it; its teardown runs on its
        // own. Settled once the status lists it (the teardown job records it under the state lock).
        let unreported = try await withTimeout(.seconds(60), "the failed teardown to show in the status") {
            while true {
                let teardowns = container.status.unreportedTeardowns
                if !teardowns.isEmpty { return teardowns }
                await Task.yield()
            }
        }
        #expect(container.status.state == .failed)
        #expect(unreported.map(\.service) == ["base"] && unreported.first?.error == "close failed")
        #expect(unreported.first?.generation == 1 && unreported.first?.scope == nil)
        let report = try await withTimeout(.seconds(60), "the reset") { try await container.reset() }
        #expect(report.failures.map(\.service) == ["base"] && report.failures.first?.error == "close failed")
        #expect(container.status.unreportedTeardowns.isEmpty, "reported by the reset, so no longer listed")
        #expect(tornDown.count == 1)
    }

    @Test("Found by the checker: after the shutdown, a reset naming an unknown service is refused as shut down")
    func resetAfterShutdownIsRefusedAsShutDown() async throws {
        let container = try ServiceContainer([ServiceSpec(ServiceKey<Int>("a")) { _ in 1 }])
        _ = try await container.start()
        try await container.shutdown()
        for names in [["missing"], ["a"], nil] {
            await #expect("reset(invalidating: \(names ?? []))") {
                try await container.reset(invalidating: names)
            } throws: { error in
                (error as? ContainerError)?.code == .shutDown
            }
        }
    }

    @Test("Found while adding shutdowns to the checker: a reload after the shutdown is refused and changes nothing")
    func reloadAfterShutdownChangesNothing() async throws {
        let container = try ServiceContainer([ServiceSpec(ServiceKey<Int>("a")) { _ in 1 }])
        try await container.shutdown()
        let other = try ServiceGraph([ServiceSpec(ServiceKey<Int>("b")) { _ in 2 }])
        await #expect {
            try await container.reload(other)
        } throws: { error in
            (error as? ContainerError)?.code == .shutDown
        }
        #expect(container.graph.serviceNames == ["a"], "the refused reload did not adopt its graph")
    }

    @Test("Found while adding shutdowns to the checker: resolve() after the shutdown says shut down, not 'not ready'")
    func resolveAfterShutdownSaysShutDown() async throws {
        let container = ServiceContainer(
            graph: try ServiceGraph(
                [
                    ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
                    ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"], lifetime: .scope("s")) { _ in 2 },
                ], scopes: ["s"]))
        let instance = try container.openScope("s", id: "i")
        _ = try await instance.start()
        #expect(try container.resolve(ServiceKey<Int>("a")) == 1 && instance.resolve(ServiceKey<Int>("b")) == 2)
        try await container.shutdown()
        #expect { try container.resolve(ServiceKey<Int>("a")) } throws: { error in
            (error as? ContainerError)?.code == .shutDown
        }
        #expect { try instance.resolve(ServiceKey<Int>("b")) } throws: { error in
            (error as? ContainerError)?.code == .closed
        }
    }

    @Test("Defect 5: two overlapping resets report a superseded build's late teardowns once, in the first")
    func overlappingResetsReportOnce() async throws {
        let gate = Gate()  // ignores cancellation: the old build finishes after both resets
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("late"), tearDown: { _ in throw TestError("close failed") }) { context in
                    if context.generation == 1 { await gate.wait() }
                    return context.generation
                }
            ], trace: [watcher])
        let caller = Task { try await container.start() }
        try await watcher.wait(for: "late to start") { $0.contains { $0.kind.starts("late") } }
        let first = Task { try await container.reset() }
        try await watcher.wait(for: "the first reset") { $0.count { $0.kind.name == "generation.reset" } == 1 }
        let second = Task { try await container.reset() }
        try await watcher.wait(for: "the second reset") { $0.count { $0.kind.name == "generation.reset" } == 2 }
        gate.open()
        _ = await caller.result
        let reports = try await withTimeout(.seconds(60), "both resets") {
            [try await first.value, try await second.value]
        }
        #expect(reports[0].failures.map(\.service) == ["late"])
        #expect(reports[1].failures.isEmpty)
        #expect(reports[0].cancelledBuild == BuildAttempt(generation: 1, attempt: 1))
    }

    @Test(
        "Defect 6: a high-priority caller raises a low-priority build; a build after a teardown runs at its callers' priority"
    )
    // Escalation of a running task exists from the OS 26 releases on (older ones skip the test).
    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    func buildPriority() async throws {
        let started = Gate()
        let escalated = Gate()
        let proceed = Gate()
        let tearDown = Gate()
        let rebuilt = Gate()
        let seen = Locked<[UInt8]>([])
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [
                ServiceSpec(ServiceKey<Int>("a"), tearDown: { _ in await tearDown.wait() }) { context in
                    seen.withLock { $0.append(Task.currentPriority.rawValue) }
                    guard context.generation == 1 else {
                        rebuilt.open()
                        return 2
                    }
                    // The node's own task learns of the escalation of the build it runs in.
                    await withTaskPriorityEscalationHandler {
                        started.open()
                        await proceed.wait()
                    } onPriorityEscalated: { _, _ in
                        escalated.open()
                    }
                    seen.withLock { $0.append(Task.currentPriority.rawValue) }
                    return 1
                }
            ], trace: [watcher])
        let low = Task.detached(priority: .background) { try await container.start(as: "low") }
        try await withTimeout(.seconds(60), "the build to start") { await started.wait() }
        let high = Task.detached(priority: .high) { try await container.start(as: "high") }
        try await withTimeout(.seconds(60), "the high caller's join to raise the running node") {
            await escalated.wait()
        }
        proceed.open()
        _ = try await withTimeout(.seconds(60), "both callers") { (try await low.value, try await high.value) }
        var priorities = seen.withLock { $0 }
        #expect(priorities.first == TaskPriority.background.rawValue)
        #expect(priorities.last.map { $0 >= TaskPriority.high.rawValue } == true, "escalated: \(priorities)")

        // A reset whose teardown is held; a background caller's build launches from the
        // teardown's task (medium priority) when it ends, and runs at the caller's priority.
        // (Nothing awaits the caller's task until then: awaiting it would raise it, and its build.)
        let reset = Task { try await container.reset() }
        try await watcher.wait(for: "the reset") { $0.contains { $0.kind.name == "generation.reset" } }
        let next = Task.detached(priority: .background) { try await container.start(as: "next") }
        try await watcher.wait(for: "the next caller to join") { $0.contains { $0.kind.caller == "next" } }
        tearDown.open()
        try await withTimeout(.seconds(60), "the next build") { await rebuilt.wait() }
        priorities = seen.withLock { $0 }
        #expect(priorities.last == TaskPriority.background.rawValue, "\(priorities)")
        _ = try await withTimeout(.seconds(60), "the reset and the next caller") {
            (try await reset.value, try await next.value)
        }
    }

    @Test("Defect 7: a caller already cancelled gets the same answer traced and untraced")
    func cancelledCallerSameAnswerTracedOrNot() async throws {
        for traced in [false, true] {
            let calls = Counter()
            let container = try ServiceContainer(
                [ServiceSpec(ServiceKey<Int>("a")) { _ in calls.increment() }], trace: traced ? [TraceRecorder()] : [])
            // Idle: a cancelled caller does not start a build.
            let idle = await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await container.start()
            }.result
            #expect(throws: CancellationError.self) { try idle.get() }
            #expect(calls.count == 0, "traced: \(traced)")
            let snapshot = try await container.start()
            // Ready: the snapshot, traced or not.
            let ready = await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await container.start()
            }.result
            #expect(try ready.get() === snapshot, "traced: \(traced)")
        }
    }

    @Test("Defect 8: layout ids never repeat; a key cached for one layout never reads another's slot")
    func layoutIDsNeverRepeat() throws {
        #expect(ServiceLayout.id(forLayoutNumber: 1) == 1)
        #expect(ServiceLayout.id(forLayoutNumber: UInt64(ServiceLayout.lastID)) == ServiceLayout.lastID)
        #expect(ServiceLayout.id(forLayoutNumber: UInt64(ServiceLayout.lastID) + 1) == ServiceLayout.uncached)
        #expect(ServiceLayout.id(forLayoutNumber: UInt64(UInt32.max) + 1) == ServiceLayout.uncached, "no wrap to 1")
        #expect(ServiceLayout.id(forLayoutNumber: .max) == ServiceLayout.uncached)

        // The last cacheable layout caches `y` at slot 1; a layout made after the ids ran out
        // has `y` at slot 0 with a value of the same type, and must not use that cache.
        let key = ServiceKey<Int>("y")
        let first = ServiceLayout(names: ["x", "y"], id: ServiceLayout.lastID)
        #expect(first.slot(of: key) == 1)
        let later = ServiceLayout(names: ["y", "x"], id: ServiceLayout.uncached)
        #expect(later.slot(of: key) == 0)
        #expect(first.slot(of: key) == 1, "the uncached lookup did not overwrite the cache")
        let fresh = KeySlotCache()
        #expect(fresh.slot(for: ServiceLayout.uncached) == nil && fresh.slot(for: 1) == nil, "empty matches nothing")
    }
}
