import ContainerTesting
import Testing

@testable import Container

@Suite("The open instances of a scope, as a list and as updates")
struct ScopeInstanceUpdatesTests {
    /// `database`, then `profile` in scope `account` and `detail` in scope `push`.
    private func container() throws -> ServiceContainer {
        try ServiceContainer(
            graph: ServiceGraph(
                [
                    ServiceSpec(ServiceKey<Int>("database")) { _ in 1 },
                    ServiceSpec(ServiceKey<Int>("profile"), dependsOn: ["database"], lifetime: .scope("account")) {
                        _ in 2
                    },
                    ServiceSpec(ServiceKey<Int>("detail"), dependsOn: ["database"], lifetime: .scope("push")) { _ in 3
                    },
                ], scopes: ["account", "push"]))
    }

    @Test("openInstances lists the scope's open instances in the order they opened, equal to their handles")
    func list() async throws {
        let container = try container()
        let ada = try container.openScope("account", id: "ada")
        _ = try container.openScope("push", id: "7")
        let bob = try container.openScope("account", id: "bob")
        #expect(container.openInstances(of: "account") == [ada, bob])
        #expect(container.openInstances(of: "account").map(\.id) == ["ada", "bob"])
        #expect(Set(container.openInstances(of: "account")).count == 2)
        #expect(container.openInstances(of: "unknown").isEmpty)
        _ = try await withTimeout(.seconds(30), "closing ada") { try await ada.close() }
        #expect(container.openInstances(of: "account") == [bob])
    }

    @Test("instanceUpdates: the list now, a new one per open or close of that scope only, the end at shutdown")
    func updates() async throws {
        let container = try container()
        var updates = container.instanceUpdates(of: "account").makeAsyncIterator()
        #expect(try await nextElement(&updates, "the list now")?.isEmpty == true)
        let ada = try container.openScope("account", id: "ada")
        #expect(try await nextElement(&updates, "ada opened")?.map(\.id) == ["ada"])
        // An instance of another scope changes nothing here: the next element is bob's opening.
        _ = try container.openScope("push", id: "7")
        _ = try container.openScope("account", id: "bob")
        #expect(try await nextElement(&updates, "bob opened")?.map(\.id) == ["ada", "bob"])
        _ = try await withTimeout(.seconds(30), "closing ada") { try await ada.close() }
        #expect(try await nextElement(&updates, "ada closed")?.map(\.id) == ["bob"])
        _ = try await container.shutdown()
        var ended: [ScopeInstance]? = []
        while let list = try await nextElement(&updates, "the end") { ended = list }
        #expect(ended?.isEmpty ?? true, "the last list, if any, is empty: shutdown closed bob")
        var late = container.instanceUpdates(of: "account").makeAsyncIterator()
        #expect(try await nextElement(&late, "a consumer after the shutdown")?.isEmpty == true)
        #expect(try await nextElement(&late, "and its end") == nil)
    }
}
