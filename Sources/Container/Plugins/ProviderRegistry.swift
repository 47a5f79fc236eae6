/// The plugins a config can use: providers by id and entry points by id.
///
/// ```swift
/// var registry = ProviderRegistry()
/// try registry.register(GreeterProvider())
/// try registry.register(entryPoint: LaunchEntryPoint())
/// ```
public struct ProviderRegistry: Sendable {
    /// Providers by id.
    public private(set) var providers: [String: AnyServiceProvider] = [:]
    /// Entry points by id.
    public private(set) var entryPoints: [String: any EntryPoint] = [:]
    /// The value types a config's inputs (`"provider": "input"`) may declare, by the name their
    /// `"options": { "type": ... }` gives: `string`, `int`, `double`, `bool`, and those
    /// registered with ``registerInput(_:named:)``.
    public private(set) var inputTypes = standardInputTypes

    /// The input types every registry starts with, made once: a registry is made for every
    /// graph declared in code.
    private static let standardInputTypes: [String: AnyServiceProvider] = [
        "string": AnyServiceProvider(InputProvider<String>()), "int": AnyServiceProvider(InputProvider<Int>()),
        "double": AnyServiceProvider(InputProvider<Double>()), "bool": AnyServiceProvider(InputProvider<Bool>()),
    ]

    /// An empty registry.
    public init() {}

    /// Adds a provider.
    /// - Throws: ``ProviderRegistry/RegistrationError`` when a provider with the same id is already
    ///   registered, or the id is `input` (reserved for inputs).
    public mutating func register<Provider: ServiceProvider>(_ provider: Provider) throws(ProviderRegistry
        .RegistrationError)
    {
        try register(AnyServiceProvider(provider))
    }

    /// Adds an erased provider.
    /// - Throws: ``ProviderRegistry/RegistrationError`` when a provider with the same id is already
    ///   registered, or the id is `input` (reserved for inputs).
    public mutating func register(_ provider: AnyServiceProvider) throws(ProviderRegistry.RegistrationError) {
        // A config's `"provider": "input"` always declares an input: such a provider could never be named.
        guard provider.id != "input" else {
            throw ProviderRegistry.RegistrationError(
                message: "the provider id 'input' is reserved for inputs (\"provider\": \"input\" in a config); "
                    + "give the provider another id")
        }
        guard providers[provider.id] == nil else {
            throw ProviderRegistry.RegistrationError(
                message: "a provider with id '\(provider.id)' is already registered; give the new one another id")
        }
        providers[provider.id] = provider
    }

    /// Adds an entry point.
    /// - Throws: ``ProviderRegistry/RegistrationError`` when an entry point with the same id is already registered.
    public mutating func register(entryPoint: some EntryPoint) throws(ProviderRegistry.RegistrationError) {
        guard entryPoints[entryPoint.id] == nil else {
            throw ProviderRegistry.RegistrationError(
                message: "an entry point with id '\(entryPoint.id)' is already registered; give the new one another id")
        }
        entryPoints[entryPoint.id] = entryPoint
    }

    /// Adds a value type config inputs may declare: `"options": { "type": "<name>" }`.
    /// - Throws: ``ProviderRegistry/RegistrationError`` when the name is taken.
    public mutating func registerInput<Value: Sendable>(
        _ type: Value.Type, named name: String
    ) throws(ProviderRegistry.RegistrationError) {
        guard inputTypes[name] == nil else {
            throw ProviderRegistry.RegistrationError(
                message: "an input type named '\(name)' is already registered; give the new one another name")
        }
        inputTypes[name] = AnyServiceProvider(InputProvider<Value>())
    }

    /// The provider with `id`, if registered.
    public func provider(_ id: String) -> AnyServiceProvider? { providers[id] }

    /// The entry point with `id`, if registered.
    public func entryPoint(_ id: String) -> (any EntryPoint)? { entryPoints[id] }
}

extension ProviderRegistry {
    /// Registering a plugin failed.
    public struct RegistrationError: Error, Sendable, CustomStringConvertible {
        /// What happened and how to fix it.
        public let message: String
        public var description: String { message }
    }
}
