import Container
import ContainerTesting
import Foundation
import Plugins
import Testing

/// `ConfigLoader.reload(path:into:)`: a new version of a config file rebuilds exactly what it
/// changed; an invalid one changes nothing.
struct ConfigReloadTests {
    /// A value with an identity, so that "carried over" can be checked with `===`.
    final class Made: Sendable {
        let name: String
        init(name: String) { self.name = name }
    }

    /// Makes a new ``Made`` per run; ``CountingProvider`` logs the runs and teardowns.
    struct MadeProvider: ServiceProvider {
        let id = "tracked"
        func make(_ context: ProviderContext) async throws -> Made { Made(name: context.serviceName) }
    }

    static func registry(_ log: OrderLog) throws -> ProviderRegistry {
        var registry = ProviderRegistry()
        try registry.register(CountingProvider(MadeProvider(), log: log) { $0.name })
        return registry
    }

    /// A config of tracked services: `(name, dependsOn, option value)`.
    static func config(_ services: [(String, [String], Int)], policy: String = "{}") -> String {
        let lines = services.map { name, dependsOn, value in
            let dependencies = dependsOn.map { "\"\($0)\"" }.joined(separator: ", ")
            return "    { \"name\": \"\(name)\", \"provider\": \"tracked\", \"dependsOn\": [\(dependencies)], "
                + "\"options\": { \"v\": \(value) } }"
        }
        return "{\n  \"version\": 1,\n  \"policy\": \(policy),\n  \"services\": [\n"
            + lines.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    static let version1 = config([
        ("a", [], 1), ("b", ["a"], 1), ("c", ["b"], 1), ("d", [], 1), ("e", [], 1),
    ])

    static func key(_ name: String) -> ServiceKey<Made> { ServiceKey(name) }

    @Test("one changed option rebuilds that service and its dependents; removed torn down once; added built")
    func reloadRebuildsExactlyWhatChanged() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let registry = try Self.registry(log)
        let path = try fixture.write("graph.json", Self.version1)
        let loaded = try ConfigLoader.load(path: path, registry: registry)
        let container = ServiceContainer(graph: loaded.graph, policy: loaded.policy)
        let first = try await container.start()
        #expect(log.entries.sorted() == ["make:a", "make:b", "make:c", "make:d", "make:e"])

        // b's option changes, e goes, f comes (depending on d); the policy change is not applied.
        _ = try fixture.write(
            "graph.json",
            Self.config(
                [("a", [], 1), ("b", ["a"], 2), ("c", ["b"], 1), ("d", [], 1), ("f", ["d"], 1)],
                policy: "{ \"failFast\": true }"))
        let report = try await ConfigLoader.reload(path: path, into: container, registry: registry)
        #expect(report.changed == ["b"])
        #expect(report.added == ["f"])
        #expect(report.removed == ["e"])
        #expect(report.rebuilt.sorted() == ["b", "c", "f"])
        #expect(report.carriedOver.sorted() == ["a", "d"])
        #expect(report.tornDown.map(\.service).sorted() == ["b", "c", "e"])

        let second = try await container.start()
        for name in ["a", "d"] {
            #expect(try first[Self.key(name)] === second[Self.key(name)], "\(name) carried over")
            #expect(log.count(of: "make:\(name)") == 1)
            #expect(log.count(of: "tearDown:\(name)") == 0)
        }
        for name in ["b", "c"] {
            #expect(try first[Self.key(name)] !== second[Self.key(name)], "\(name) rebuilt")
            #expect(log.count(of: "make:\(name)") == 2)
            #expect(log.count(of: "tearDown:\(name)") == 1)
        }
        #expect(log.count(of: "make:f") == 1)
        #expect(log.count(of: "make:e") == 1)
        #expect(log.count(of: "tearDown:e") == 1)
        #expect(second.serviceNames == ["a", "b", "c", "d", "f"])
        #expect(container.graph.serviceNames == ["a", "b", "c", "d", "f"])
        _ = try await container.shutdown()
    }

    @Test("an invalid new version: its errors, and nothing changes (same snapshot, no provider ran)")
    func invalidReloadChangesNothing() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let registry = try Self.registry(log)
        let path = try fixture.write("graph.json", Self.version1)
        let container = ServiceContainer(graph: try ConfigLoader.load(path: path, registry: registry).graph)
        let snapshot = try await container.start()
        let calls = log.entries
        let generation = container.generation

        let broken = Self.version1.replacingOccurrences(of: "\"dependsOn\": [\"b\"]", with: "\"dependsOn\": [\"bb\"]")
        #expect(broken != Self.version1)
        _ = try fixture.write("graph.json", broken)
        do {
            try await ConfigLoader.reload(path: path, into: container, registry: registry)
            Issue.record("expected the broken version to be rejected")
        } catch let error as ConfigError {
            #expect(error.codes == [.missingDependency])
            #expect(error.issues.first?.location.keyPath == "services[2].dependsOn[0]")
            #expect(error.description.contains("did you mean 'b'?"))
        }
        #expect(container.current === snapshot, "the old snapshot stays published")
        #expect(container.generation == generation)
        #expect(log.entries == calls, "no provider ran, nothing was torn down")
        let again = try await container.start()
        #expect(again === snapshot)
        #expect(log.entries == calls)
        _ = try await container.shutdown()
    }

    @Test("reload with overlays: the overlaid version is what is compared")
    func reloadWithOverlays() async throws {
        let fixture = try AppFixture()
        defer { fixture.remove() }
        let log = OrderLog()
        let registry = try Self.registry(log)
        let path = try fixture.write("graph.json", Self.version1)
        let overlay = try fixture.write(
            "overlay.json", #"{ "version": 1, "services": [ { "name": "d", "options": { "v": 7 } } ] }"#)
        let container = ServiceContainer(graph: try ConfigLoader.load(path: path, registry: registry).graph)
        _ = try await container.start()
        let report = try await ConfigLoader.reload(path: path, into: container, overlays: [overlay], registry: registry)
        #expect(report.changed == ["d"])
        #expect(report.rebuilt == ["d"])
        // The same files again: nothing changes.
        let same = try await ConfigLoader.reload(path: path, into: container, overlays: [overlay], registry: registry)
        #expect(same.changes.isEmpty)
        #expect(same.rebuilt.isEmpty)
        _ = try await container.shutdown()
    }
}
