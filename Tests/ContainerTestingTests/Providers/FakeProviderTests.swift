import Container
import ContainerTesting
import Testing

extension ServiceKey where Value == String {
    fileprivate static let store = ServiceKey("store")
    fileprivate static let feed = ServiceKey("feed")
}

@Suite("Fake providers: scripted, counting, as providers and as specs")
struct FakeProviderTests {
    @Test("a fake that succeeds: its value reaches the snapshot and dependents; calls and teardowns are counted")
    func succeeding() async throws {
        let store = FakeProvider.succeeding("disk")
        let container = try ServiceContainer([
            .fake(.store, store),
            ServiceSpec(.feed, dependsOn: ["store"]) { "feed on \(try $0[.store])" },
        ])
        let services = try await withTimeout { try await container.start() }
        #expect(try services[.feed] == "feed on disk")
        #expect(store.calls == 1)
        #expect(store.tearDowns == 0)
        _ = try await withTimeout { try await container.shutdown() }
        #expect(store.tearDowns == 1)
    }

    @Test("a script: a transient failure, then a value; the failure is classified as the step says")
    func scripted() async throws {
        let store = FakeProvider(.fail(.transient, "disk busy"), .succeed("disk"))
        let trace = TraceWatcher()
        let container = try ServiceContainer([.fake(.store, store)], trace: [trace])
        let error = await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start() } }
        #expect(error?.failure == .transient)
        #expect(try await withTimeout { try await container.start() }[.store] == "disk")
        #expect(store.calls == 2)
        try trace.expect(.failed("store", .transient), .succeeded("store"), .started("store", times: 2))
        #expect(
            trace.events.contains { $0.kind == .nodeFailed(node: "store", failure: .transient, error: "disk busy") })
    }

    @Test("a permanent failure is sticky; the last step repeats")
    func permanent() async throws {
        let store = FakeProvider<String>.failing(.permanent)
        let container = try ServiceContainer([.fake(.store, store)])
        for _ in 0..<2 {
            let error = await #expect(throws: ContainerError.self) {
                try await withTimeout { try await container.start() }
            }
            #expect(error?.failure == .permanent)
        }
        #expect(store.calls == 1, "a sticky failure does not call the provider again")
        _ = try await withTimeout { try await container.reset() }
        await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start() } }
        #expect(store.calls == 2)
    }

    @Test("a fake waiting on a gate holds the build until the gate opens")
    func waiting() async throws {
        let gate = Gate()
        let store = FakeProvider.waiting(on: gate, returning: "disk")
        let trace = TraceWatcher()
        let container = try ServiceContainer([.fake(.store, store)], trace: [trace])
        let first = Task { try await container.start(as: "first") }
        try await trace.wait(for: .started("store", times: 1))
        #expect(container.current == nil)
        gate.open()
        #expect(try await withTimeout { try await first.value }[.store] == "disk")
    }

    @Test("an empty script fails permanently with a message saying so")
    func emptyScript() async throws {
        let store = FakeProvider<String>([])
        let container = try ServiceContainer([.fake(.store, store)])
        let error = await #expect(throws: ContainerError.self) { try await withTimeout { try await container.start() } }
        #expect(error?.failure == .permanent)
        let outcome = error?.report?.outcome(of: "store").map { "\($0)" } ?? ""
        #expect(outcome.contains("empty script"), "\(outcome)")
    }

    @Test("a counting provider logs each call and each teardown around the wrapped provider")
    func countingProvider() async throws {
        let log = OrderLog()
        let base = FakeProvider.succeeding("disk")
        let container = try ServiceContainer([
            ServiceSpec(name: "store", provider: CountingProvider(base, log: log) { "value \($0)" }),
            .counting(.feed, dependsOn: ["store"], log: log) { _ in "feed" },
        ])
        _ = try await withTimeout { try await container.start() }
        _ = try await withTimeout { try await container.start() }
        _ = try await withTimeout { try await container.shutdown() }
        #expect(log.entries == ["make:store", "feed", "tearDown:value disk"])
        #expect(base.calls == 1)
        #expect(base.tearDowns == 1, "the wrapped provider's teardown runs too")
    }
}
