public import Container

/// What a ``FakeProvider`` does on one call: return a value, fail, wait on a gate, or run code.
///
/// ```swift
/// let flaky = FakeProvider(.fail(.transient), .succeed(Database.inMemory))   // fails once, then succeeds
/// let held = FakeProvider(.wait(on: gate, then: .succeed(Database.inMemory)))
/// ```
public struct FakeStep<Value: Sendable>: Sendable {
    let run: @Sendable (ProviderContext) async throws -> Value

    private init(_ run: @escaping @Sendable (ProviderContext) async throws -> Value) { self.run = run }

    /// Returns `value`.
    public static func succeed(_ value: Value) -> FakeStep { FakeStep { _ in value } }

    /// Throws a ``FakeFailure`` of `kind` (transient or permanent) with `message`.
    public static func fail(_ kind: FailureKind, _ message: String? = nil) -> FakeStep {
        let failure = FakeFailure(kind, message ?? "fake \(kind) failure")
        return FakeStep { _ in throw failure }
    }

    /// Waits until `gate` opens, then does `step`.
    ///
    /// - Parameters:
    ///   - gate: the gate to wait on.
    ///   - cancellable: whether the task's cancellation ends the wait with `CancellationError`
    ///     (default), or is ignored, as by a provider that never checks for it.
    ///   - step: what to do once the gate is open.
    public static func wait(on gate: Gate, cancellable: Bool = true, then step: FakeStep) -> FakeStep {
        FakeStep { context in
            if cancellable { try await gate.cancellableWait() } else { await gate.wait() }
            return try await step.run(context)
        }
    }

    /// Runs `body`: anything else a test needs (read a dependency, record the context).
    public static func make(_ body: @escaping @Sendable (ProviderContext) async throws -> Value) -> FakeStep {
        FakeStep(body)
    }
}

/// The error a ``FakeStep/fail(_:_:)`` step throws: it classifies itself as its ``kind``.
public struct FakeFailure: ClassifiedError, Sendable, Hashable, CustomStringConvertible {
    /// Transient or permanent.
    public let kind: FailureKind
    /// The error's text, as it appears in the trace and in `ContainerError`.
    public let message: String

    /// A failure of `kind` reading `message`.
    public init(_ kind: FailureKind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// ``kind``: the runtime treats the failure as transient or permanent accordingly.
    public var failureKind: FailureKind { kind }

    /// ``message``.
    public var description: String { message }
}
