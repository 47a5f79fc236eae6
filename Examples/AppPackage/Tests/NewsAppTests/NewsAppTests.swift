import Container
import ContainerTesting
import NewsApp
import Testing

@Suite("The news app on the container")
struct NewsAppTests {
    @Test("A scoped entry point runs on a graph declared without requirements")
    func pushRuns() async throws {
        let container = ServiceContainer(graph: try makeGraph(apiHost: "test.host"))
        let line = try await container.run(
            PushEntryPoint(), scopeID: "n-1", parameters: [.set(.itemID, to: "B-2")])
        #expect(line == "opened: B-2 from test.host → console, metrics")
        try await container.shutdown()
    }

    @Test("An override replaces the API client; the group and its reader keep their declarations")
    func overrideInATest() async throws {
        // The API client's dependencies are dropped: the fake needs no settings.
        let graph = try makeGraph().overriding([.value(.api, APIClient(host: "fake"), dependsOn: [])])
        let container = ServiceContainer(graph: graph)
        let services = try await container.start()
        #expect(try services[.api].host == "fake")
        #expect(try services[.analytics].trackers.map(\.name) == ["console", "metrics"])
        let line = try await container.run(
            PushEntryPoint(), scopeID: "n-2", parameters: [.set(.itemID, to: "C-3")])
        #expect(line == "opened: C-3 from fake → console, metrics")
        try await container.shutdown()
    }

    @Test("A failing fake API fails the push, once per attempt, and names the service")
    func fakeFailure() async throws {
        let api = FakeProvider<APIClient>.failing(.permanent, "offline")
        let container = try ServiceContainer(graph: makeGraph(), overrides: [.fake(.api, dependsOn: [], api)])
        let error = await #expect(throws: ContainerError.self) {
            _ = try await container.run(PushEntryPoint(), scopeID: "n-3", parameters: [.set(.itemID, to: "D-4")])
        }
        #expect(
            String(describing: error).contains("'api'"), "the failure names the service: \(String(describing: error))")
        #expect(api.calls == 1, "the app's build ran the fake once")
        try await container.shutdown()
    }
}
