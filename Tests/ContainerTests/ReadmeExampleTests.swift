import Container
import Foundation
import Testing

// The README's "services in code" example, compiled and run as it is printed there.
private struct Settings: Sendable {
    var databasePath = ":memory:"
    static func load() throws -> Settings { Settings() }
}
private final class Database: Sendable {
    let path: String
    init(path: String) { self.path = path }
    static func open(_ path: String) async throws -> Database { Database(path: path) }
    func close() async throws {}
}
private struct Session: Sendable {
    let userID: String?
    static func restore(from database: Database) async throws -> Session { Session(userID: "ada") }
}

extension ServiceKey where Value == Settings { fileprivate static let settings = ServiceKey("settings") }
extension ServiceKey where Value == Database { fileprivate static let database = ServiceKey("database") }
extension ServiceKey where Value == Session { fileprivate static let session = ServiceKey("session") }

@Suite("README example")
struct ReadmeExampleTests {
    @Test("Three services declared in code, built once and resolved")
    func example() async throws {
        let container = try ServiceContainer([
            ServiceSpec(.settings) { _ in try Settings.load() },
            // Typed edges: a typo or a changed type is a validation error, not a surprise at run time.
            ServiceSpec(.database, dependsOn: .settings, tearDown: { try await $0.close() }) { context in
                try await Database.open(try context[.settings].databasePath)
            },
            ServiceSpec(.session, dependsOn: .database) { try await Session.restore(from: $0[.database]) },
        ])
        let services = try await container.start()  // every concurrent caller joins this one build
        let session = try services[.session]  // typed and synchronous
        #expect(session.userID == "ada")
        #expect(container.current === services)  // the hot path: no await once ready
        #expect(try services[.database].path == ":memory:")
        let greeting = try await container.run(Greeting())  // "hello, ada"
        #expect(greeting == "hello, ada")
    }

    @Test("The README's example is the one printed there")
    func printed() throws {
        let readme = try String(contentsOfFile: PackagePaths.root + "/README.md", encoding: .utf8)
        #expect(readme.contains("ServiceSpec(.database, dependsOn: .settings, tearDown: { try await $0.close() })"))
        #expect(readme.contains("@Needs(.session) var session: Session"))
        #expect(readme.contains("let greeting = try await container.run(Greeting())   // \"hello, ada\""))
    }
}

// An entry point declares what it needs once, as properties; the container checks and fills them.
private struct Greeting: EntryPoint {
    let id = "greeting"
    @Needs(.session) var session: Session
    func run(_ services: ScopedServices) async throws -> String { "hello, \(session.userID ?? "guest")" }
}

private enum PackagePaths {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
