import Container
import Foundation
import TestSupport
import Testing

// The Scopes article's example (Sources/Container/Documentation.docc/Scopes.md), compiled and run
// as it is printed there. `ScopeParameters.Key.itemID` is the one ScopeTests.swift declares.
private struct Settings: Sendable {
    var databasePath = ":memory:"
    static func load() throws -> Settings { Settings() }
}
private final class Database: Sendable {
    let path: String
    init(path: String) { self.path = path }
    static func open(_ path: String) async throws -> Database { Database(path: path) }
}
private final class ItemDetail: Sendable {
    let itemID: String
    let database: Database
    init(itemID: String, database: Database) {
        self.itemID = itemID
        self.database = database
    }
    static func load(_ itemID: String, from database: Database) async throws -> ItemDetail {
        ItemDetail(itemID: itemID, database: database)
    }
}

extension ServiceKey where Value == Settings { fileprivate static let settings = ServiceKey("settings") }
extension ServiceKey where Value == Database { fileprivate static let database = ServiceKey("database") }
extension ServiceKey where Value == ItemDetail { fileprivate static let pushDetail = ServiceKey("pushDetail") }

@Suite("Scopes article example")
struct ScopesArticleTests {
    @Test("A push scope's detail is built on the app's database with the instance's item id, then torn down")
    func example() async throws {
        let graph = try ServiceGraph(
            [
                ServiceSpec(.settings) { _ in try Settings.load() },
                ServiceSpec(.database, dependsOn: ["settings"]) {
                    try await Database.open(try $0[.settings].databasePath)
                },
                ServiceSpec(.pushDetail, dependsOn: ["database"], lifetime: .scope("push")) { context in
                    try await ItemDetail.load(try context.parameter(.itemID), from: try context[.database])
                },
            ],
            scopes: ["push"])
        let container = ServiceContainer(graph: graph)

        let push = try container.openScope("push", id: "notification-42", parameters: [.set(.itemID, to: "A-17")])
        let detail = try await push.start()[.pushDetail]  // joins (or starts) the app build first
        let same = try push.resolve(.pushDetail)  // synchronous, once the instance is ready
        #expect(detail.itemID == "A-17" && same === detail)
        #expect(try detail.database === container.resolve(.database), "built on the app's database")
        #expect(push.label == "push#notification-42")
        try await push.close()  // tears its values down
        #expect(push.current == nil && container.openScopes.isEmpty)
        try await container.shutdown()
    }

    @Test("The article prints the example as the test above runs it")
    func articleShowsIt() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/Container/Documentation.docc/Scopes.md"), encoding: .utf8)
        for line in [
            #"ServiceSpec(.database, dependsOn: ["settings"]) {"#,
            "try await Database.open(try $0[.settings].databasePath)",
            #"ServiceSpec(.pushDetail, dependsOn: ["database"], lifetime: .scope("push")) { context in"#,
            "try await ItemDetail.load(try context.parameter(.itemID), from: try context[.database])",
            #"scopes: ["push"])"#,
            #"let push = try container.openScope("push", id: "notification-42", parameters: [.set(.itemID, to: "A-17")])"#,
            "let detail = try await push.start()[.pushDetail]",
            "let same = try push.resolve(.pushDetail)",
            "try await push.close()",
        ] {
            #expect(article.contains(line), "Scopes.md lacks: \(line)")
        }
    }
}
