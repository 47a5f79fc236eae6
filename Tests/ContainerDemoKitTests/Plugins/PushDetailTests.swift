import Container
import ContainerDemoKit
import ContainerTesting
import Plugins
import Testing

/// The demo's `pushDetail` provider over a real in-memory SQLite database migrated with the
/// demo's schema (which creates the `items` table, ``DemoSchema/itemsTable``).
private struct PushApp {
    let log = OrderLog()
    let container: ServiceContainer

    init() throws {
        let database = ServiceSpec(
            name: "database", provider: SQLiteProvider(defaultMigrations: DemoSchema.migrations),
            options: ServiceOptions(["path": .string(":memory:")]))
        var detail = ServiceSpec(
            name: "pushDetail", provider: CountingProvider(PushDetailProvider(), log: log) { $0.itemID },
            dependsOn: ["database"])
        detail.lifetime = .scope("push")
        container = ServiceContainer(graph: try ServiceGraph([database, detail], scopes: ["push"]))
    }

    /// How many times the `pushDetail` provider ran.
    var detailCalls: Int { log.count(of: "make:pushDetail") }

    /// The title the database holds for `itemID`, read directly.
    func title(of itemID: String) async throws -> String? {
        let database = try await container.start()[.database]
        return try database.query("SELECT title FROM items WHERE id = ?", [.text(itemID)]).first?["title"]?.string
    }

    /// The permanent failure of `pushDetail` in a push instance opened with `parameters`.
    func failure(id: String, parameters: ScopeParameters = []) async throws -> NodeOutcome.Failure? {
        let push = try container.openScope("push", id: id, parameters: parameters)
        let error = await #expect(throws: ContainerError.self) { try await withTimeout { try await push.start() } }
        #expect(error?.failure == .permanent)
        guard case .failed(let failure)? = error?.report?.outcome(of: "pushDetail") else {
            Issue.record("pushDetail should have failed; the report says \(String(describing: error?.report))")
            return nil
        }
        // Permanent, so sticky: a second start fails at once, without running the provider again.
        let calls = detailCalls
        await #expect(throws: ContainerError.self) { try await withTimeout { try await push.start() } }
        #expect(detailCalls == calls)
        return failure
    }
}

@Suite("The pushDetail provider: the push's item from the database (Scopes)")
struct PushDetailTests {
    @Test("Items A-17 and B-3 give their own titles and ids, as the items table has them")
    func twoItemsTwoDetails() async throws {
        let app = try PushApp()
        let first = try app.container.openScope("push", id: "n-1", parameters: [.set(.itemID, to: "A-17")])
        let second = try app.container.openScope("push", id: "n-2", parameters: [.set(.itemID, to: "B-3")])
        let one = try await withTimeout { try await first.start()[.pushDetail] }
        let two = try await withTimeout { try await second.start()[.pushDetail] }
        #expect(one.itemID == "A-17" && two.itemID == "B-3")
        let expectedOne = try #require(try await app.title(of: "A-17"))
        let expectedTwo = try #require(try await app.title(of: "B-3"))
        #expect(one.title == expectedOne && two.title == expectedTwo)
        #expect(one.title != two.title)
        #expect(app.detailCalls == 2)
        try await app.container.shutdown()
    }

    @Test("An item added to the table is found: the provider reads the database, not a fixed list")
    func readsTheDatabase() async throws {
        let app = try PushApp()
        let database = try await withTimeout { try await app.container.start()[.database] }
        _ = try database.execute(
            "INSERT INTO items (id, title) VALUES (?, ?)", [.text("Z-9"), .text("Added by a test")])
        let push = try app.container.openScope("push", id: "n", parameters: [.set(.itemID, to: "Z-9")])
        let detail = try await withTimeout { try await push.start()[.pushDetail] }
        #expect(detail.itemID == "Z-9" && detail.title == "Added by a test")
        try await app.container.shutdown()
    }

    @Test("A push opened without itemID fails pushDetail permanently, naming itemID")
    func missingItemID() async throws {
        let app = try PushApp()
        let failure = try await app.failure(id: "n-0")
        #expect(failure?.kind == .permanent)
        #expect(failure?.message.contains("'itemID'") == true, "\(String(describing: failure?.message))")
        #expect(failure?.message.contains("push#n-0") == true)
        #expect(app.detailCalls == 1)
        try await app.container.shutdown()
    }

    @Test("A push naming an unknown item fails pushDetail permanently, naming the item")
    func unknownItem() async throws {
        let app = try PushApp()
        #expect(try await app.title(of: "Q-404") == nil)
        let failure = try await app.failure(id: "n-9", parameters: [.set(.itemID, to: "Q-404")])
        #expect(failure?.kind == .permanent)
        #expect(failure?.message.contains("no item 'Q-404'") == true, "\(String(describing: failure?.message))")
        #expect(app.detailCalls == 1)
        try await app.container.shutdown()
    }
}
