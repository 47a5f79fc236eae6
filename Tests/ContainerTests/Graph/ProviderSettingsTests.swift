import Synchronization
import Testing

@testable import Container

/// How many times something ran, shared by a provider's copies.
private final class Count: Sendable {
    private let value = Atomic<Int>(0)
    func increment() { value.add(1, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}

/// A provider with settings of its own: reads `name` once, at validation, and counts the reads.
private struct GreeterProvider: ServiceProvider {
    struct Settings: Sendable, Equatable { var name: String }
    let id = "greeter"
    let reads: Count
    func settings(from options: ServiceOptions) throws -> Settings {
        reads.increment()
        return Settings(name: try options.string("name"))
    }
    func make(_ context: ProviderContext) async throws -> String { "hello, \(try context.settings(for: self).name)" }
}

/// Another provider with settings of another type, for overrides.
private struct ShoutingProvider: ServiceProvider {
    struct Settings: Sendable { var volume: Int }
    let id = "shouting"
    let reads: Count
    func settings(from options: ServiceOptions) throws -> Settings {
        reads.increment()
        return Settings(volume: try options.int("volume"))
    }
    func make(_ context: ProviderContext) async throws -> String {
        "HELLO" + String(repeating: "!", count: try context.settings(for: self).volume)
    }
}

/// A provider whose settings hold a secret, which its error quotes.
private struct TokenProvider: ServiceProvider {
    struct Settings: Sendable { var token: String }
    let id = "token"
    func settings(from options: ServiceOptions) throws -> Settings {
        let token = try options.string("token")
        throw OptionError.invalid("token", "'\(token)' is expired")
    }
    func make(_ context: ProviderContext) async throws -> String { try context.settings(for: self).token }
}

/// A provider of the first version of the API: it checks its options in `validate` and reads
/// them in `make`.
private struct CheckingProvider: ServiceProvider {
    let id = "checking"
    let checks: Count
    func validate(options: ServiceOptions) throws {
        checks.increment()
        _ = try options.int("size")
    }
    func make(_ context: ProviderContext) async throws -> Int {
        let settings: ServiceOptions = try context.settings(for: self)
        return try settings.int("size") + (try context.options.int("size"))
    }
}

/// A provider that checks nothing (neither `validate` nor `settings(from:)`).
private struct PlainProvider: ServiceProvider {
    let id = "plain"
    func make(_ context: ProviderContext) async throws -> Int { context.options.values.count }
}

/// Wraps a provider and forwards `make` only: the node's settings are the wrapper's (the options).
private struct ForwardingProvider<Base: ServiceProvider>: ServiceProvider {
    let base: Base
    var id: String { base.id }
    func make(_ context: ProviderContext) async throws -> Base.Value { try await base.make(context) }
}

@Suite("Provider settings: options read once, at validation, kept with the node (Writing a plugin)")
struct ProviderSettingsTests {
    private func registry(_ providers: [AnyServiceProvider]) throws -> ProviderRegistry {
        var registry = ProviderRegistry()
        for provider in providers { try registry.register(provider) }
        return registry
    }

    @Test("A provider's settings are read when the graph is validated, never again on a run")
    func readOnce() async throws {
        let reads = Count()
        let graph = try ServiceGraph(
            [ServiceSpec(name: "greeting", provider: "greeter", options: ServiceOptions(["name": .string("ada")]))],
            registry: registry([AnyServiceProvider(GreeterProvider(reads: reads))]))
        #expect(reads.current == 1)
        let container = ServiceContainer(graph: graph)
        #expect(try await container.start()[ServiceKey<String>("greeting")] == "hello, ada")
        try await container.reset()
        #expect(try await container.start()[ServiceKey<String>("greeting")] == "hello, ada")
        #expect(reads.current == 1, "two runs, one read")
        try await container.shutdown()
    }

    @Test("What settings(from:) throws is an invalidOptions issue naming the option, its secrets redacted")
    func rejectedSettings() throws {
        let registry = try registry([
            AnyServiceProvider(GreeterProvider(reads: Count())), AnyServiceProvider(TokenProvider()),
        ])
        let wrongType = #expect(throws: GraphError.self) {
            try ServiceGraph(
                [ServiceSpec(name: "greeting", provider: "greeter", options: ServiceOptions(["name": .int(7)]))],
                registry: registry)
        }
        let issue = try #require(wrongType?.issues.first)
        #expect(issue.code == .invalidOptions)
        #expect(issue.option == "name")
        #expect(
            issue.message == "service 'greeting' (provider 'greeter'): option 'name' must be a string, found an integer"
        )
        #expect(issue.underlying as? OptionError == .wrongType("name", expected: "a string", found: "an integer"))

        let options = ServiceOptions(["token": .string("tok_9f8e7d")], secretKeys: ["token"])
        let secret = #expect(throws: GraphError.self) {
            try ServiceGraph([ServiceSpec(name: "api", provider: "token", options: options)], registry: registry)
        }
        let redacted = try #require(secret?.issues.first)
        #expect(redacted.message == "service 'api' (provider 'token'): option 'token': '<redacted>' is expired")
        #expect((redacted.underlying as? OptionError)?.message == "option 'token': '<redacted>' is expired")

        // Past the limit of secret text, that is the only issue: nothing else is checked.
        let big = ServiceOptions(
            ["token": .string(String(repeating: "t0k_", count: ServiceGraph.maximumSecretBytes / 4 + 1))],
            secretKeys: ["token"])
        let tooMuch = #expect(throws: GraphError.self) {
            try ServiceGraph(
                [ServiceSpec(name: "api", provider: "token", options: big), ServiceSpec(name: "x", provider: "none")],
                registry: registry)
        }
        #expect(tooMuch?.issues.map(\.code) == [.invalidOptions])
        #expect(tooMuch?.issues.first?.message.contains("over the limit of 1048576") == true)
        #expect(tooMuch?.issues.first?.service == "api")
    }

    @Test("A provider of the first API: validate(options:) runs at validation; its settings are the options")
    func validateOnlyProvider() async throws {
        let checks = Count()
        let registry = try registry([AnyServiceProvider(CheckingProvider(checks: checks))])
        let graph = try ServiceGraph(
            [ServiceSpec(name: "size", provider: "checking", options: ServiceOptions(["size": .int(4)]))],
            registry: registry)
        #expect(checks.current == 1)
        let container = ServiceContainer(graph: graph)
        #expect(try await container.start()[ServiceKey<Int>("size")] == 8)
        try await container.shutdown()
        let error = #expect(throws: GraphError.self) {
            try ServiceGraph([ServiceSpec(name: "size", provider: "checking")], registry: registry)
        }
        #expect(error?.issues.map(\.code) == [.invalidOptions])
        #expect(error?.issues.first?.option == "size")
    }

    @Test("Defaults: a provider that checks nothing accepts everything; a typed one's validate reads its settings")
    func defaults() throws {
        try PlainProvider().validate(options: ServiceOptions(["anything": .null]))
        let options = ServiceOptions(["anything": .null])
        #expect(try PlainProvider().settings(from: options) == options)
        let reads = Count()
        #expect(throws: OptionError.self) { try GreeterProvider(reads: reads).validate(options: ServiceOptions()) }
        #expect(reads.current == 1)
    }

    @Test("An override's node keeps the settings of the override's provider")
    func overrides() async throws {
        let graph = try ServiceGraph(
            [
                ServiceSpec(
                    name: "greeting", provider: GreeterProvider(reads: Count()),
                    options: ServiceOptions(["name": .string("ada")]))
            ])
        let reads = Count()
        let overridden = try graph.overriding([
            .provider(
                ServiceKey<String>("greeting"), ShoutingProvider(reads: reads),
                options: ServiceOptions(["volume": .int(3)]))
        ])
        #expect(reads.current == 1)
        let container = ServiceContainer(graph: overridden)
        #expect(try await container.start()[ServiceKey<String>("greeting")] == "HELLO!!!")
        #expect(reads.current == 1, "read by the override's provider when it was validated")
        try await container.shutdown()
    }

    @Test("A reload gives the rebuilt node the settings read from its new options")
    func reload() async throws {
        func graph(_ name: String) throws -> ServiceGraph {
            try ServiceGraph([
                ServiceSpec(
                    name: "greeting", provider: GreeterProvider(reads: Count()),
                    options: ServiceOptions(["name": .string(name)]))
            ])
        }
        let container = ServiceContainer(graph: try graph("ada"))
        #expect(try await container.start()[ServiceKey<String>("greeting")] == "hello, ada")
        let report = try await container.reload(try graph("grace"))
        #expect(report.changed == ["greeting"])
        #expect(try await container.start()[ServiceKey<String>("greeting")] == "hello, grace")
        try await container.shutdown()
    }

    @Test("A wrapper that forwards make but not settings: the wrapped provider reads the options on its run")
    func wrapperWithoutSettings() async throws {
        let reads = Count()
        let graph = try ServiceGraph([
            ServiceSpec(
                name: "greeting", provider: ForwardingProvider(base: GreeterProvider(reads: reads)),
                options: ServiceOptions(["name": .string("ada")]))
        ])
        #expect(reads.current == 0, "the wrapper validated the node, with the default settings")
        let container = ServiceContainer(graph: graph)
        #expect(try await container.start()[ServiceKey<String>("greeting")] == "hello, ada")
        #expect(reads.current == 1)
        try await container.shutdown()
    }

    @Test("A scope's part keeps each node's settings")
    func scopedNode() async throws {
        let reads = Count()
        var spec = ServiceSpec(
            name: "greeting", provider: GreeterProvider(reads: reads), options: ServiceOptions(["name": .string("ada")])
        )
        spec.lifetime = .scope("push")
        let graph = try ServiceGraph([spec], scopes: ["push"])
        let container = ServiceContainer(graph: graph)
        let push = try container.openScope("push", id: "1")
        #expect(try await push.start()[ServiceKey<String>("greeting")] == "hello, ada")
        #expect(reads.current == 1)
        try await push.close()
        try await container.shutdown()
    }

    @Test("An integer option: too large for Int (or infinite) says so; a fraction is the wrong type")
    func integerOptions() throws {
        let huge = #expect(throws: OptionError.self) { try ServiceOptions(["n": .double(0x1p63)]).int("n") }
        #expect(
            huge?.message
                == "option 'n': is too large for an integer (at most 9223372036854775807, Int.max); use a smaller value"
        )
        let infinite = #expect(throws: OptionError.self) { try ServiceOptions(["n": .double(.infinity)]).int("n") }
        #expect(infinite?.message.contains("is too large for an integer") == true)
        let fraction = #expect(throws: OptionError.self) { try ServiceOptions(["n": .double(1.5)]).int("n") }
        #expect(fraction == .wrongType("n", expected: "an integer", found: "a number"))
        #expect(try ServiceOptions(["n": .double(12)]).int("n") == 12)
    }
}
