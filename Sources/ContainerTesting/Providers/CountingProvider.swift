public import Container

/// Wraps a real provider to log every call: `make:<service>` before each ``make(_:)``, and
/// `tearDown:<label>` before each teardown (label chosen from the value).
///
/// It always has a teardown (calling the wrapped one's when there is one), so the teardown
/// order of every service shows in the log. An optional gate holds each call back until it
/// opens (the wait ends when the task is cancelled).
///
/// ```swift
/// let log = OrderLog()
/// try registry.register(CountingProvider(SQLiteProvider(), log: log) { _ in "database" })
/// // ...
/// #expect(log.count(of: "make:database") == 1)
/// ```
public struct CountingProvider<Base: ServiceProvider>: ServiceProvider {
    /// The wrapped provider.
    public let base: Base
    /// Where calls are logged.
    public let log: OrderLog
    /// Holds every call back until it opens, when set.
    public let gate: Gate?
    private let label: @Sendable (Base.Value) -> String

    /// Wraps `base`.
    ///
    /// - Parameters:
    ///   - base: the provider to wrap.
    ///   - log: where `make:` and `tearDown:` entries go.
    ///   - gate: holds every call back until it opens.
    ///   - label: names a value in its `tearDown:` entry.
    public init(
        _ base: Base, log: OrderLog, gate: Gate? = nil, label: @escaping @Sendable (Base.Value) -> String
    ) {
        self.base = base
        self.log = log
        self.gate = gate
        self.label = label
    }

    /// The wrapped provider's id: configs name it as before.
    public var id: String { base.id }

    /// Logs `make:<service>`, waits for the gate if any, then calls the wrapped provider.
    public func make(_ context: ProviderContext) async throws -> Base.Value {
        log.append("make:\(context.serviceName)")
        try await gate?.cancellableWait()
        return try await base.make(context)
    }

    /// Logs `tearDown:<label>`, then runs the wrapped provider's teardown if it has one.
    public var tearDown: (@Sendable (Base.Value) async throws -> Void)? {
        let log = log
        let label = label
        let baseTearDown = base.tearDown
        return { value in
            log.append("tearDown:\(label(value))")
            try await baseTearDown?(value)
        }
    }

    /// The wrapped provider's classification.
    public func classify(_ error: any Error) -> FailureKind? { base.classify(error) }

    /// The wrapped provider's settings: its checks, and what its ``make(_:)`` reads back.
    public func settings(from options: ServiceOptions) throws -> Base.Settings { try base.settings(from: options) }

    /// The wrapped provider's option checks.
    public func validate(options: ServiceOptions) throws { try base.validate(options: options) }

    /// The wrapped provider's requirements.
    public var requirements: [AnyServiceKey] { base.requirements }
}
