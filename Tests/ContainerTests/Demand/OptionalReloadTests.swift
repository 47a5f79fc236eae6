import ContainerTesting
import Testing

@testable import Container

private let rKey = ServiceKey<String>("r")
private let oKey = ServiceKey<Made>("o")

/// A reload that makes an absent optional service required: its readers, built without it, are
/// changed with it and built again, so no request gets part of its closure.
@Suite("Reload: an optional service made required", .timeLimit(.minutes(2)))
struct OptionalReloadTests {
    /// `o` (lazy) fails on its first run only; `r` reads it through an optional edge when `o` is
    /// optional, through a plain edge otherwise (lazy in the app, eager in a scope).
    private static func graph(oOptional: Bool, log: OrderLog, readerScope: String? = nil) throws -> ServiceGraph {
        var o = countedSpec("o", log: log, start: .lazy) { _ in
            if log.count(of: "o") == 1 { throw Classified(failureKind: .transient) }
        }
        o.isOptional = oOptional
        let reader = ServiceSpec(
            rKey, dependsOn: [oOptional ? "o?" : "o"], lifetime: readerScope.map { .scope($0) } ?? .app,
            start: readerScope == nil ? .lazy : .eager
        ) { context in
            log.append("r")
            let made = (try? context.optional(oKey)) ?? nil
            return made == nil ? "without o" : "with o"
        }
        return try ServiceGraph([o, reader], scopes: readerScope.map { [.init($0)] } ?? [])
    }

    @Test("the app: a request for the reader after the reload gets o and a reader made with it")
    func appReader() async throws {
        let log = OrderLog()
        let container = ServiceContainer(graph: try Self.graph(oOptional: true, log: log))
        let first = try await withTimeout(.seconds(30), "first request") {
            try await container.start(needs: [rKey.erased])
        }
        #expect(try first[rKey] == "without o" && first.absence(of: "o") != nil)
        let report = try await withTimeout(.seconds(30), "reload") {
            try await container.reload(try Self.graph(oOptional: false, log: log))
        }
        #expect(report.changed == ["o"] && Set(report.rebuilt) == ["o", "r"], "\(report)")
        let second = try await withTimeout(.seconds(30), "request after reload") {
            try await container.start(needs: [rKey.erased])
        }
        #expect(second.contains("o"), "log \(log.entries)")
        #expect(try second[rKey] == "with o")
        #expect(log.count(of: "r") == 2 && log.count(of: "o") == 2)
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }

    @Test("a scope instance: reloaded, its reader is served made with o")
    func scopedReader() async throws {
        let log = OrderLog()
        let container = ServiceContainer(graph: try Self.graph(oOptional: true, log: log, readerScope: "s"))
        let instance = try container.openScope("s", id: "one")
        let first = try await withTimeout(.seconds(30), "first") { try await instance.start() }
        #expect(try first[rKey] == "without o")
        let report = try await withTimeout(.seconds(30), "reload") {
            try await container.reload(try Self.graph(oOptional: false, log: log, readerScope: "s"))
        }
        #expect(report.reloadedScopes == ["s#one"], "\(report)")
        let second = try await withTimeout(.seconds(30), "after reload") { try await instance.start() }
        #expect(try second[rKey] == "with o", "log \(log.entries)")
        _ = try await withTimeout(.seconds(30), "shutdown") { try await container.shutdown() }
    }
}
