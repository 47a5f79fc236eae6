import ContainerTesting
import Testing

@testable import Container

@Suite("The trace orders events as the transitions happened (Trace format)")
struct TraceOrderTests {
    @Test("Callers' found states agree with the build and publication events around them")
    func foundStatesAreConsistent() async throws {
        for _ in 0..<20 {
            let recorder = TraceRecorder()
            let container = try ServiceContainer(
                [
                    ServiceSpec(ServiceKey<Int>("a")) { _ in
                        await Task.yield(); return 1
                    },
                    ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
                ], trace: [recorder])
            try await withTimeout(.seconds(60), "200 callers") {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<200 { group.addTask { _ = try await container.start(as: "c\(index)") } }
                    try await group.waitForAll()
                }
            }
            let names = recorder.events.map(\.kind.name)
            let started = try #require(names.firstIndex(of: "build.started"))
            let published = try #require(names.firstIndex(of: "snapshot.published"))
            #expect(names.count { $0 == "build.started" } == 1)
            #expect(started < published)
            for (index, event) in recorder.events.enumerated() {
                guard case .callerJoined(_, let state, _) = event.kind else { continue }
                switch state {
                case .idle: #expect(index == started - 1, "the caller that found idle starts the build")
                case .running: #expect(index > started && index < published)
                case .ready: #expect(index > published)
                default: Issue.record("unexpected state \(state)")
                }
            }
            #expect(names.count { $0 == "caller.resumed" } == 200)
            let times = recorder.events.map(\.time)
            #expect(times == times.sorted())
        }
    }

    @Test("A reload that changes nothing: the first caller of the new generation finds it ready after its snapshot")
    func readyAfterAReloadThatChangesNothing() async throws {
        let recorder = TraceRecorder()
        let specs = [
            ServiceSpec(ServiceKey<Int>("a")) { _ in 1 },
            ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"]) { _ in 2 },
        ]
        let container = ServiceContainer(graph: try ServiceGraph(specs), trace: [recorder])
        _ = try await withTimeout { try await container.start(as: "launch") }
        _ = try await withTimeout { try await container.reload(try ServiceGraph(specs)) }
        let snapshot = try await withTimeout { try await container.start(as: "scene") }
        #expect(snapshot.generation == 2)
        let second = recorder.events.filter { $0.build.generation == 2 }.map(\.kind)
        #expect(second.filter { $0.name == "build.started" }.isEmpty, "nothing to build: every value carried over")
        let published = try #require(second.firstIndex { $0.name == "snapshot.published" })
        let joined = try #require(
            second.firstIndex { $0 == .callerJoined(caller: "scene", state: .ready, request: .eager) })
        #expect(published < joined)
        #expect(TraceInvariants.readyAfterItsSnapshot.check(recorder.events).passed)
    }

    @Test("With resets racing the callers, every caller is answered once, after it joined, in its generation")
    func resetsRacingCallers() async throws {
        for _ in 0..<5 {
            let recorder = TraceRecorder()
            let container = try ServiceContainer(
                [
                    ServiceSpec(ServiceKey<Int>("a")) { _ in
                        await Task.yield(); return 1
                    },
                    ServiceSpec(ServiceKey<Int>("b"), dependsOn: ["a"], tearDown: { _ in }) { _ in 2 },
                ], trace: [recorder])
            try await withTimeout(.seconds(60), "callers and resets") {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // 8 tasks of 300 callers each (most find the container ready), and resets among them.
                    for task in 0..<8 {
                        group.addTask {
                            for index in 0..<300 { _ = try? await container.start(as: "c\(task)-\(index)") }
                        }
                    }
                    group.addTask {
                        for _ in 0..<4 {
                            _ = try? await container.start()
                            try await container.reset()
                        }
                    }
                    try await group.waitForAll()
                }
            }
            var joined: [String: Int] = [:]  // caller -> generation it joined
            var answered: [String: Int] = [:]
            var resetFrom = Set<Int>()
            for event in recorder.events {
                switch event.kind {
                case .generationReset(let change):
                    resetFrom.insert(change.from)
                case .callerJoined(let caller, let state, _):
                    #expect(joined[caller] == nil, "\(caller) joined twice")
                    joined[caller] = event.generation
                    if state == .ready {
                        #expect(!resetFrom.contains(event.generation), "\(caller) found a superseded generation ready")
                    }
                case .callerResumed(let caller, _), .callerCancelled(let caller):
                    #expect(joined[caller] != nil, "\(caller) answered before it joined")
                    answered[caller, default: 0] += 1
                default:
                    break
                }
            }
            #expect(joined.count >= 2_400)
            #expect(answered.count == joined.count && answered.values.allSatisfy { $0 == 1 })
            let times = recorder.events.map(\.time)
            #expect(times == times.sorted())
        }
    }
}
