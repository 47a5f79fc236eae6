import ContainerTesting

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

/// A spec whose provider logs its name to `log` (so `log.count(of: name)` counts its calls),
/// then runs `body` (default: nothing) and makes a ``Made``.
func countedSpec(
    _ name: String, dependsOn: [String] = [], log: OrderLog, timeout: Duration? = nil, retry: RetryPolicy = .none,
    defaultFailure: FailureKind? = nil, start: StartPolicy = .eager,
    body: @escaping @Sendable (ProviderContext) async throws -> Void = { _ in },
    tearDown: (@Sendable (Made) async throws -> Void)? = nil
) -> ServiceSpec {
    .counting(
        .made(name), dependsOn: dependsOn, timeout: timeout, retry: retry, defaultFailure: defaultFailure,
        start: start, log: log, tearDown: tearDown
    ) { context in
        try await body(context)
        return Made(name: name, generation: context.generation)
    }
}

/// `spec`, declared optional: its failure never fails a request.
func optional(_ spec: ServiceSpec) -> ServiceSpec {
    var spec = spec
    spec.isOptional = true
    return spec
}
