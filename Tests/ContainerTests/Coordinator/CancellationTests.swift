import ContainerTesting
import Testing

@testable import Container

@Suite("Caller cancellation and exactly-once resumption (Coordinator rules 5, 6)")
struct CancellationTests {
    @Test("A cancelled caller gets CancellationError while the build is held; the others get the snapshot")
    func cancelledCallerLeavesBuildRunning() async throws {
        let gate = Gate()
        let log = OrderLog()
        let watcher = TraceWatcher()
        let container = try ServiceContainer(
            [countedSpec("held", log: log) { _ in await gate.wait() }], trace: [watcher])

        let others = (0..<3).map { index in Task { try await container.start(as: "other\(index)") } }
        let victim = Task { try await container.start(as: "victim") }
        try await watcher.wait(for: "4 callers to join") { $0.count { $0.kind.name == "caller.joined" } == 4 }

        victim.cancel()
        // The victim returns while the gate is still closed: it does not wait for the build.
        let outcome = try await withTimeout(.seconds(60), "the cancelled caller") { await victim.result }
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(container.current == nil)
        #expect(watcher.events.contains { $0.kind == .callerCancelled(caller: "victim") })

        gate.open()
        var snapshots: [AppServices] = []
        for task in others {
            snapshots.append(try await withTimeout(.seconds(60), "other callers") { try await task.value })
        }
        #expect(Set(snapshots.map(ObjectIdentifier.init)).count == 1)
        #expect(log.count(of: "held") == 1)
        #expect(watcher.count("build.started") == 1)
        #expect(watcher.count("snapshot.published") == 1)
    }

    @Test("A caller cancelled before it calls start() is resumed at once, exactly once")
    func cancelledBeforeStart() async throws {
        let gate = Gate()
        let container = try ServiceContainer([
            ServiceSpec(ServiceKey<Int>("held")) { _ in
                await gate.wait(); return 1
            }
        ])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await container.start()
        }
        let outcome = try await withTimeout(.seconds(60), "a pre-cancelled caller") { await task.result }
        #expect(throws: CancellationError.self) { try outcome.get() }
        gate.open()
    }

    @Test(
        "Cancellation racing completion, 10,000 times (2,000 under ThreadSanitizer): every waiter resumed once",
        .timeLimit(.minutes(10)))
    func cancellationRacesCompletion() async throws {
        // Under ThreadSanitizer a race costs about 10× and the whole suite shares 2 cores, so it
        // races 2,000 times there (still every interleaving the sanitizer instruments); the plain
        // run races 10,000.
        let iterations = ThreadSanitizerHooks.acquire != nil ? 2_000 : 10_000
        let resumed = Counter()
        let gotSnapshot = Counter()
        let gotCancelled = Counter()
        let builds = Counter()
        // Each race has its own bound, the loop only a generous one: under a loaded parallel run
        // the loop's wall time (56-79 s) says how busy the host is, not whether a race hung.
        for index in 0..<iterations {
            try await withTimeout(.seconds(60), "race \(index)") {
                let gate = Gate()
                let container = try ServiceContainer([
                    ServiceSpec(ServiceKey<Int>("value")) { _ in
                        builds.increment()
                        await gate.wait()
                        return 7
                    }
                ])
                let caller = Task {
                    defer { resumed.increment() }
                    return try await container.start()
                }
                // Race: open the gate (completion) and cancel the caller at the same time.
                async let open: Void = gate.open()
                async let cancel: Void = caller.cancel()
                _ = await (open, cancel)
                switch await caller.result {
                case .success: gotSnapshot.increment()
                case .failure(let error):
                    #expect(error is CancellationError)
                    gotCancelled.increment()
                }
                // The build itself always finishes and publishes, whoever won the race.
                _ = try await container.start()
            }
        }
        #expect(resumed.count == iterations)
        #expect(gotSnapshot.count + gotCancelled.count == iterations)
        #expect(builds.count == iterations)
    }
}
