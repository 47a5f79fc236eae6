/// What a provider receives: its node's name, options, and the values of the services it
/// declared in `dependsOn`, with typed access.
///
/// ```swift
/// let config = try context[.configuration]
/// ```
///
/// Reading a service the node did not declare throws ``ServiceLookupError`` (`.undeclared`),
/// so a provider cannot depend on something the graph does not know about.
public struct ProviderContext: Sendable {
    /// The node's name.
    public let serviceName: String
    /// The node's options.
    public let options: ServiceOptions
    /// The generation being built.
    public let generation: Int
    /// The container's build attempt within the generation (1-based).
    public let attempt: Int
    /// This provider run within the build's retries of this node (1-based).
    public let run: Int
    /// The node's slot in its graph.
    let slot: Int
    let dependencies: [String: AnyServiceBox]
    let declared: [String]
    let redactor: Redactor

    init(
        serviceName: String, slot: Int, options: ServiceOptions, generation: Int, attempt: Int, run: Int,
        dependencies: [String: AnyServiceBox], declared: [String], redactor: Redactor
    ) {
        self.serviceName = serviceName
        self.options = options
        self.generation = generation
        self.attempt = attempt
        self.run = run
        self.slot = slot
        self.dependencies = dependencies
        self.declared = declared
        self.redactor = redactor
    }

    /// Reads a declared dependency.
    /// - Throws: ``ServiceLookupError`` when `key` is not in the node's `dependsOn` or has another type.
    public func resolve<Value>(_ key: ServiceKey<Value>) throws(ServiceLookupError) -> Value {
        guard let box = dependencies[key.name] else {
            throw .undeclared(key.name, reader: "service '\(serviceName)'", declared: declared)
        }
        guard let value = box.anyValue as? Value else {
            throw .typeMismatch(key.name, expected: Value.self, actual: box.valueType)
        }
        return value
    }

    /// Reads a declared dependency; the same as ``resolve(_:)``.
    public subscript<Value>(key: ServiceKey<Value>) -> Value {
        get throws(ServiceLookupError) { try resolve(key) }
    }

    /// Marks `secret` (a token, a password) so it is redacted from every trace and error.
    public func registerSecret(_ secret: String) { redactor.register(secret) }
}
