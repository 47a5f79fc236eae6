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
/// A provider whose options have a type of their own reads them once, when the graph is
/// validated (``settings(from:)``), and its ``make(_:)`` reads the result back from the node:
///
/// ```swift
/// struct GreeterProvider: ServiceProvider {
///     struct Settings: Sendable { var name: String }
///     let id = "greeter"
///     func settings(from options: ServiceOptions) throws -> Settings {
///         Settings(name: try options.string("name"))
///     }
///     func make(_ context: ProviderContext) async throws -> Greeter {
///         Greeter(name: try context.settings(for: self).name, clock: try context[.clock])
///     }
/// }
/// ```
///
/// A provider is called at most once per node per run, never concurrently for the same
/// node, and never under a lock. It should return promptly when its task is cancelled.
public protocol ServiceProvider<Value>: Sendable {
    /// The type of value this provider makes.
    associatedtype Value: Sendable

    /// What the provider reads a node's options into (``settings(from:)``); ``ServiceOptions``
    /// (the default) for a provider that reads ``ProviderContext/options`` itself.
    associatedtype Settings: Sendable = ServiceOptions

    /// The id a config file's `provider` field uses for this provider.
    var id: String { get }

    /// Makes the value.
    ///
    /// Runs on the executor its caller, the build, gives it (`nonisolated(nonsending)`): the
    /// build's threads, or the main actor for a main-actor node (``isolation``). A `@MainActor`
    /// implementation runs on the main actor whatever the caller; declare ``isolation`` `.main`
    /// then, so the build batches it with the other main-actor nodes.
    ///
    /// - Parameter context: the node's name, options and declared dependencies.
    /// - Throws: any error; see ``BuildPolicy/ErrorClassifier`` for how it is classified.
    nonisolated(nonsending) func make(_ context: ProviderContext) async throws -> Value

    /// Where ``make(_:)`` runs: ``ServiceSpec/Isolation/nonisolated`` (the default) or
    /// ``ServiceSpec/Isolation/main``; a spec's own ``ServiceSpec/isolation`` (a config's
    /// `"isolation"`) wins over it (see <doc:LaunchTiers>).
    var isolation: ServiceSpec.Isolation { get }

    /// Releases what ``make(_:)`` acquired, or `nil` when the value needs no teardown (the default).
    ///
    /// Called once per value, in reverse dependency order, after the build that made it
    /// has stopped, when its generation is retired (reset, shutdown, permanent failure).
    var tearDown: (@Sendable (Value) async throws -> Void)? { get }

    /// Says whether `error` (thrown by ``make(_:)``) is transient or permanent; `nil` (the default)
    /// leaves the decision to the container's classifier.
    func classify(_ error: any Error) -> FailureKind?

    /// Reads a node's options into the provider's settings, once, when the graph is validated:
    /// bad options are reported with every other config error (an ``OptionError`` names the
    /// option), and ``make(_:)`` reads the result with ``ProviderContext/settings(for:)`` instead
    /// of reading the options again. Each node keeps the settings of the provider that
    /// validated it (an override's, after ``ServiceGraph/overriding(_:)``).
    ///
    /// The default, for a provider whose ``Settings`` are the options, runs
    /// ``validate(options:)`` and returns the options.
    func settings(from options: ServiceOptions) throws -> Settings

    /// Checks a node's options before anything runs, so that bad options are reported with
    /// every other config error. For a provider with ``Settings`` of its own, the default reads
    /// them (``settings(from:)``) and drops them; for one whose settings are the options, it
    /// accepts everything.
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
    /// The checks of ``settings(from:)``: the settings are read and dropped.
    public func validate(options: ServiceOptions) throws { _ = try settings(from: options) }
    /// Declares nothing.
    public var requirements: [AnyServiceKey] { [] }
    /// Runs where its caller runs: the build's threads, unless the spec says otherwise.
    public var isolation: ServiceSpec.Isolation { .nonisolated }
}

// The defaults of a provider whose settings are its options (every provider that only checks them).
extension ServiceProvider where Settings == ServiceOptions {
    /// Runs ``ServiceProvider/validate(options:)`` and returns the options.
    public func settings(from options: ServiceOptions) throws -> ServiceOptions {
        try validate(options: options)
        return options
    }
    /// Accepts every option.
    public func validate(options: ServiceOptions) throws {}
}

/// A provider that makes its value without suspending: its services can be built on the
/// caller's thread by ``ServiceContainer/resolveNow(_:as:isolation:)`` (see <doc:LaunchTiers>), and async
/// builds run it like any other. It must return promptly: it may run on a thread the app is
/// waiting on (the main thread, before launch returns).
///
/// ```swift
/// struct SettingsProvider: SynchronousServiceProvider {
///     let id = "settings"
///     func makeNow(_ context: ProviderContext) throws -> Settings { Settings() }
/// }
/// ```
public protocol SynchronousServiceProvider<Value>: ServiceProvider {
    /// The type of value this provider makes (restated, so that it is inferred from ``makeNow(_:)``).
    associatedtype Value

    /// Makes the value, without suspending.
    func makeNow(_ context: ProviderContext) throws -> Value
}

extension SynchronousServiceProvider {
    /// Calls ``makeNow(_:)``.
    public func make(_ context: ProviderContext) async throws -> Value { try makeNow(context) }
}

/// A provider made from closures, for services declared in code.
struct ClosureProvider<Value: Sendable>: ServiceProvider {
    /// The provider's id (`"closure"` for services declared in code with a closure: ``ServiceSpec``).
    public let id: String
    // Both `nonisolated(nonsending)`: a closure literal runs on the executor the build gives its
    // node (the main actor for a main-actor node), like a provider's `make`.
    private let makeValue: nonisolated(nonsending) @Sendable (ProviderContext) async throws -> Value
    /// Releases a value this provider made, on the executor of the teardown job (see ``callerTearDown``).
    let callerTearDown: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)?

    /// Creates a provider from a factory and an optional teardown.
    public init(
        id: String, tearDown: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)? = nil,
        make: nonisolated(nonsending) @escaping @Sendable (ProviderContext) async throws -> Value
    ) {
        self.id = id
        self.makeValue = make
        self.callerTearDown = tearDown
    }

    /// Releases a value this provider made, if set (on the build's threads; the container calls
    /// ``callerTearDown``, which runs where the teardown job runs).
    public var tearDown: (@Sendable (Value) async throws -> Void)? {
        guard let callerTearDown else { return nil }
        return { @Sendable value in try await callerTearDown(value) }
    }

    public func make(_ context: ProviderContext) async throws -> Value { try await makeValue(context) }
}

/// A synchronous provider made from closures, for services declared in code
/// (``ServiceSpec/synchronous(_:dependsOn:options:lifetime:group:start:tearDown:fileID:line:make:)``).
struct SynchronousClosureProvider<Value: Sendable>: SynchronousServiceProvider {
    let id: String
    private let makeValue: @Sendable (ProviderContext) throws -> Value
    let tearDown: (@Sendable (Value) async throws -> Void)?

    init(
        id: String, tearDown: (@Sendable (Value) async throws -> Void)? = nil,
        make: @escaping @Sendable (ProviderContext) throws -> Value
    ) {
        self.id = id
        self.makeValue = make
        self.tearDown = tearDown
    }

    func makeNow(_ context: ProviderContext) throws -> Value { try makeValue(context) }
}

/// A provider with its value type erased; the runtime's only view of providers.
///
/// One object holds the erased provider (an internal `ErasedProvider`): validation, the graph's
/// nodes and their declarations copy a provider several times each, and a copy retains that one
/// reference; a node run calls its `make` through it, with no closure context in between.
public struct AnyServiceProvider: Sendable {
    private let erased: any ErasedProvider

    /// The provider's id.
    public var id: String { erased.id }
    /// The type of value it makes.
    public var valueType: any Sendable.Type { erased.valueType }
    /// `ObjectIdentifier(valueType)`, as values' boxes record it.
    var valueTypeID: ObjectIdentifier { ObjectIdentifier(erased.valueType) }
    /// What the provider declares it reads (``ServiceProvider/requirements``).
    public var requirements: [AnyServiceKey] { erased.requirements }
    /// Whether it is an input provider: the app supplies the value.
    var isInput: Bool { erased.isInput }
    /// Where the provider's `make` runs (``ServiceProvider/isolation``).
    public var isolation: ServiceSpec.Isolation { erased.isolation }
    /// The provider's ``SynchronousServiceProvider/makeNow(_:)``, for a synchronous provider.
    var makeNow: (@Sendable (ProviderContext) throws -> AnyServiceBox)? { erased.makeNow }

    /// Whether the provider is a ``SynchronousServiceProvider``.
    public var isSynchronous: Bool { erased.makeNow != nil }

    /// Makes the value, boxed; `nonisolated(nonsending)`: on the builder's executor, without a
    /// hop on entry.
    nonisolated(nonsending) func make(_ context: ProviderContext) async throws -> AnyServiceBox {
        try await erased.make(context)
    }

    /// The provider's classification of `error` (``ServiceProvider/classify(_:)``).
    func classify(_ error: any Error) -> FailureKind? { erased.classify(error) }

    /// The provider's ``ServiceProvider/settings(from:)``: `nil` for settings that are the
    /// options unchanged, which the node already holds.
    func settings(_ options: ServiceOptions) throws -> (any Sendable)? { try erased.settings(options) }

    /// Erases `provider`.
    public init<Provider: ServiceProvider>(_ provider: Provider) {
        var tearDown: (nonisolated(nonsending) @Sendable (Provider.Value) async throws -> Void)?
        // Not `Optional.map`: a generic call over a function type looks its metadata up at run time.
        if let release = provider.tearDown { tearDown = release }
        erased = ProviderBox(provider, tearDown: tearDown, isPlain: false)
    }

    /// Erases a closure provider, whose teardown runs where the teardown job calls it (the main
    /// actor for a value made there). Known statically: a cast of every provider to find one
    /// would look generic metadata up for each.
    init<Value>(closure provider: ClosureProvider<Value>) {
        erased = ProviderBox(provider, tearDown: provider.callerTearDown, isPlain: true)
    }
}
