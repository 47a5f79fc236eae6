import Container
import ContainerTesting
import Foundation
import Testing

// The README's "Testing your graph" example, compiled and run as it is printed there: an app's
// graph (`MyApp.services`) and the two tests a user writes for it.
private struct Settings: Sendable {
    var databasePath = "/var/app.sqlite"
}
private final class Database: Sendable {
    let path: String
    init(path: String) { self.path = path }
    static let inMemory = Database(path: ":memory:")
}
private struct Session: Sendable {
    let database: String
}

extension ServiceKey where Value == Settings { fileprivate static let settings = ServiceKey("settings") }
extension ServiceKey where Value == Database { fileprivate static let database = ServiceKey("database") }
extension ServiceKey where Value == Session { fileprivate static let session = ServiceKey("session") }

private enum MyApp {
    /// The app's services, as it ships them: the real database would open a file.
    static let services: [ServiceSpec] = [
        ServiceSpec(.settings) { _ in Settings() },
        ServiceSpec(.database, dependsOn: ["settings"]) { Database(path: try $0[.settings].databasePath) },
        ServiceSpec(.session, dependsOn: ["database"]) { Session(database: try $0[.database].path) },
    ]
}

@Test func aFailingDatabaseSkipsTheSession() async throws {
    let trace = TraceWatcher()  // records the trace; a test can wait on it
    let container = try ServiceContainer(
        graph: try ServiceGraph(MyApp.services),  // your app's graph, as it ships
        overrides: [.fake(.database, .failing(.transient))],  // this test's replacement
        trace: [trace])
    await #expect(throws: ContainerError.self) { try await container.start(as: "launch") }
    try trace.expect(
        .overridden("database"), .skipped("session", because: "database"), .resumed("launch", with: .failure))
}

@Test func callersShareOneBuild() async throws {
    let gate = Gate()
    let database = FakeProvider.waiting(on: gate, returning: Database.inMemory)  // holds the build
    let trace = TraceWatcher()
    let container = try ServiceContainer(
        graph: try ServiceGraph(MyApp.services), overrides: [.fake(.database, database)], trace: [trace])
    async let launch = container.start(as: "launch")
    async let scene = container.start(as: "scene")
    try await trace.wait(for: "both callers to join") { $0.count("caller.joined") == 2 }
    gate.open()
    #expect(try await launch === scene)
    #expect(database.calls == 1)
    try trace.expect(.builtOnce("session"), .resumedWithSnapshot("launch"), .resumedWithSnapshot("scene"))
    try trace.expect(TraceInvariants.expectations(for: container.graph))  // the rules every trace keeps
}

@Suite("README test kit example")
struct ReadmeTestKitExampleTests {
    @Test("the README and the DocC article show the example as this file runs it")
    func readmeShowsIt() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/ContainerTesting/Documentation.docc/TestingYourGraph.md"),
            encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        // Every line of the two tests, from `@Test func` to their closing brace, as printed.
        let start = try #require(source.range(of: "@Test func aFailingDatabaseSkipsTheSession()"))
        let end = try #require(source.range(of: "\n}\n\n@Suite"))
        let example = source[start.lowerBound..<end.lowerBound] + "\n}"
        for line in example.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            #expect(readme.contains(line), "README lacks: \(line)")
            #expect(article.contains(line), "the DocC article Testing your graph lacks: \(line)")
        }
    }
}
