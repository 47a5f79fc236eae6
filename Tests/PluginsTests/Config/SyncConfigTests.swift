import Container
import Foundation
import Plugins
import Testing

@Suite("Synchronous services in a config (Launch tiers)")
struct SyncConfigTests {
    @Test("\"sync\": true on a closure of synchronous providers loads; resolveNow builds it")
    func syncClosure() async throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "settings", "provider": "simulatedNow" },
                { "name": "delegate", "provider": "simulatedNow", "dependsOn": ["settings"], "sync": true },
                { "name": "database", "provider": "simulated", "dependsOn": ["settings"] }
              ]
            }
            """
        let config = try ConfigLoader.load(text: text, file: "test.json", registry: .standard)
        #expect(config.specs[1].sync && !config.specs[0].sync)
        #expect(config.graph.isSynchronous("delegate") == true && config.graph.isSynchronous("database") == false)
        let container = ServiceContainer(graph: config.graph)
        let value = try await offThePoolValue { try container.resolveNow(ServiceKey<SimulatedValue>("delegate")) }
        #expect(value.node == "delegate")
    }

    @Test("\"sync\": true with an asynchronous dependency is an error at the key, naming it")
    func asyncDependency() throws {
        let text = """
            {
              "version": 1,
              "services": [
                { "name": "database", "provider": "simulated" },
                { "name": "delegate", "provider": "simulatedNow", "dependsOn": ["database"], "sync": "yes" },
                { "name": "registrar", "provider": "simulatedNow", "dependsOn": ["database"], "sync": true }
              ]
            }
            """
        let error = try #require(loadError(text))
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(error.description)")
        #expect(lines.contains { $0.contains("services[1].sync") && $0.contains("must be true or false") })
        #expect(
            lines.contains {
                $0.contains(
                    "services[2].sync: service 'registrar' is declared sync, but it depends on 'database', "
                        + "whose provider 'simulated' is asynchronous")
            })
    }

    @Test("simulatedNow refuses the hang outcome, which nothing could cancel")
    func noHang() throws {
        let text = """
            { "version": 1, "services": [
              { "name": "a", "provider": "simulatedNow", "options": { "outcomes": ["hang"] } } ] }
            """
        let error = try #require(loadError(text))
        #expect(error.description.contains("a synchronous provider cannot hang"))
    }
}

/// Runs `work` on a thread of its own (not a task's), and awaits its value.
func offThePoolValue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}
