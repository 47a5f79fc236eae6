import TestSupport

@testable import Container

struct TestError: Error, CustomStringConvertible {
    let text: String
    init(_ text: String = "boom") { self.text = text }
    var description: String { text }
}

struct Classified: ClassifiedError, CustomStringConvertible {
    let failureKind: FailureKind
    var description: String { "classified \(failureKind)" }
}

/// A value type for tests: which node made it, and in which run.
final class Made: Sendable {
    let name: String
    let generation: Int
    init(name: String, generation: Int) {
        self.name = name
        self.generation = generation
    }
}

extension ServiceKey where Value == Made {
    static func made(_ name: String) -> ServiceKey<Made> { ServiceKey(name) }
}

/// Per-node call counters for a graph of `Made` values.
final class CallLog: Sendable {
    private let counters: [String: Counter]
    init(_ names: [String]) { counters = Dictionary(uniqueKeysWithValues: names.map { ($0, Counter()) }) }
    func record(_ name: String) { counters[name]!.increment() }
    func calls(_ name: String) -> Int { counters[name]!.count }
}

/// A spec whose provider counts its calls, then runs `body` (default: nothing).
func countedSpec(
    _ name: String, dependsOn: [String] = [], log: CallLog, timeout: Duration? = nil, retry: RetryPolicy = .none,
    defaultFailure: FailureKind? = nil,
    body: @escaping @Sendable (ProviderContext) async throws -> Void = { _ in },
    tearDown: (@Sendable (Made) async throws -> Void)? = nil
) -> ServiceSpec {
    ServiceSpec(
        .made(name), dependsOn: dependsOn, timeout: timeout, retry: retry, defaultFailure: defaultFailure,
        tearDown: tearDown
    ) { context in
        log.record(name)
        try await body(context)
        return Made(name: name, generation: context.generation)
    }
}
