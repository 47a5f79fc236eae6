/// A provider plugin: makes one service's value from its options and its dependencies.
///
/// The config file names a provider by its ``id``; a ``ProviderRegistry`` maps ids to providers.
///
/// ```swift
/// struct GreeterProvider: ServiceProvider {
///     let id = "greeter"
///     func make(_ context: ProviderContext) async throws -> Greeter {
///         Greeter(name: try context.options.string("name"), clock: try context[.clock])
///     }
/// }
/// ```
///
/// A provider is called at most once per node per run, never concurrently for the same
/// node, and never under a lock. It should return promptly when its task is cancelled.
public protocol ServiceProvider<Value>: Sendable {
    /// The type of value this provider makes.
    associatedtype Value: Sendable

    /// The id a config file's `provider` field uses for this provider.
    var id: String { get }

    /// Makes the value.
    ///
    /// - Parameter context: the node's name, options and declared dependencies.
    /// - Throws: any error; see ``ErrorClassifier`` for how it is classified.
    func make(_ context: ProviderContext) async throws -> Value

    /// Releases what ``make(_:)`` acquired, or `nil` when the value needs no teardown (the default).
    ///
    /// Called once per value, in reverse dependency order, after the build that made it
    /// has stopped, when its generation is retired (reset, shutdown, permanent failure).
    var tearDown: (@Sendable (Value) async throws -> Void)? { get }

    /// Says whether `error` (thrown by ``make(_:)``) is transient or permanent; `nil` (the default)
    /// leaves the decision to the container's classifier.
    func classify(_ error: any Error) -> FailureKind?

    /// Checks a node's options before anything runs, so that bad options are reported with
    /// every other config error. The default accepts everything.
    func validate(options: ServiceOptions) throws

    /// The services this provider reads from its context, with the types it reads them as.
    /// Validation checks that every node using the provider depends on each of them and that
    /// their providers make those types (see <doc:TypedDependencies>). Empty by default.
    var requirements: [AnyServiceKey] { get }
}

extension ServiceProvider {
    /// No teardown.
    public var tearDown: (@Sendable (Value) async throws -> Void)? { nil }
    /// Leaves the classification to the node's config and the container.
    public func classify(_ error: any Error) -> FailureKind? { nil }
    /// Accepts every option.
    public func validate(options: ServiceOptions) throws {}
    /// Declares nothing.
    public var requirements: [AnyServiceKey] { [] }
}

/// A provider made from closures, for services declared in code.
public struct ClosureProvider<Value: Sendable>: ServiceProvider {
    /// The provider's id (`"closure"` for services declared in code with a closure: ``ServiceSpec``).
    public let id: String
    private let makeValue: @Sendable (ProviderContext) async throws -> Value
    /// Releases a value this provider made, if set.
    public let tearDown: (@Sendable (Value) async throws -> Void)?

    /// Creates a provider from a factory and an optional teardown.
    public init(
        id: String, tearDown: (@Sendable (Value) async throws -> Void)? = nil,
        make: @escaping @Sendable (ProviderContext) async throws -> Value
    ) {
        self.id = id
        self.makeValue = make
        self.tearDown = tearDown
    }

    public func make(_ context: ProviderContext) async throws -> Value { try await makeValue(context) }
}

/// A provider with its value type erased; the runtime's only view of providers.
public struct AnyServiceProvider: Sendable {
    /// The provider's id.
    public let id: String
    /// The type of value it makes.
    public let valueType: any Sendable.Type
    /// `ObjectIdentifier(valueType)`, as values' boxes record it.
    var valueTypeID: ObjectIdentifier { ObjectIdentifier(valueType) }
    /// `nonisolated(nonsending)`: runs on the builder's executor, without a hop on entry.
    let make: nonisolated(nonsending) @Sendable (ProviderContext) async throws -> AnyServiceBox
    let classify: @Sendable (any Error) -> FailureKind?
    let validate: @Sendable (ServiceOptions) throws -> Void
    /// What the provider declares it reads (``ServiceProvider/requirements``).
    public let requirements: [AnyServiceKey]

    /// Erases `provider`.
    public init<Provider: ServiceProvider>(_ provider: Provider) {
        self.id = provider.id
        self.valueType = Provider.Value.self
        // The box's type, looked up once: a generic type named inside the closure would be
        // looked up (hashed) in the runtime's metadata cache on every node run.
        let boxType = ServiceBox<Provider.Value>.self
        self.make = { context in
            let value = try await provider.make(context)
            return boxType.init(
                value, name: context.serviceName,
                builtIn: BuildAttempt(generation: context.generation, attempt: context.attempt),
                tearDown: provider.tearDown)
        }
        self.classify = { provider.classify($0) }
        self.validate = { try provider.validate(options: $0) }
        self.requirements = provider.requirements
    }
}
