public import Container

/// A provider for tests: follows a script of ``FakeStep``s, one per call, and counts its calls
/// and teardowns.
///
/// Call `n` does step `n`; once the script is used up, the last step repeats. Copies share
/// their counts, so keep the provider to read them after the container used it:
///
/// ```swift
/// let database = FakeProvider.succeeding(Database.inMemory)
/// let container = try ServiceContainer([.fake(.database, database), ...])
/// _ = try await container.start()
/// #expect(database.calls == 1)
/// ```
///
/// Every value it makes has a teardown that counts (``tearDowns``), so teardown events appear
/// in the trace for fake services too.
public struct FakeProvider<Value: Sendable>: ServiceProvider {
    /// The provider's id, as the trace and errors name it (default `fake`).
    public let id: String
    private let steps: [FakeStep<Value>]
    private let callCount = Counter()
    private let tearDownCount = Counter()

    /// A provider following `steps`, one per call (the last repeats).
    ///
    /// - Parameters:
    ///   - id: the provider's id (default `fake`).
    ///   - steps: the script; an empty script fails every call permanently.
    public init(id: String = "fake", _ steps: [FakeStep<Value>]) {
        self.id = id
        self.steps = steps
    }

    /// A provider following `steps`, one per call (the last repeats).
    public init(id: String = "fake", _ steps: FakeStep<Value>...) {
        self.init(id: id, steps)
    }

    /// A provider that returns `value` on every call.
    public static func succeeding(_ value: Value, id: String = "fake") -> FakeProvider {
        FakeProvider(id: id, .succeed(value))
    }

    /// A provider that fails on every call, transiently or permanently.
    public static func failing(_ kind: FailureKind, _ message: String? = nil, id: String = "fake") -> FakeProvider {
        FakeProvider(id: id, .fail(kind, message))
    }

    /// A provider that waits until `gate` opens (or its task is cancelled), then returns `value`.
    public static func waiting(on gate: Gate, returning value: Value, id: String = "fake") -> FakeProvider {
        FakeProvider(id: id, .wait(on: gate, then: .succeed(value)))
    }

    /// How many times ``make(_:)`` was called, in any container and generation.
    public var calls: Int { callCount.count }

    /// How many values were torn down.
    public var tearDowns: Int { tearDownCount.count }

    /// Does the script's step for this call.
    public func make(_ context: ProviderContext) async throws -> Value {
        let call = callCount.increment()
        guard let last = steps.last else {
            throw FakeFailure(.permanent, "fake provider '\(id)' has an empty script; give it a step")
        }
        let step = call <= steps.count ? steps[call - 1] : last
        return try await step.run(context)
    }

    /// Counts the teardown.
    public var tearDown: (@Sendable (Value) async throws -> Void)? {
        let count = tearDownCount
        return { _ in count.increment() }
    }
}
