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
    /// This provider run of the node within its generation, counting every run of every
    /// attempt and retry (1-based); a new generation starts again at 1.
    public let runInGeneration: Int
    /// The node's slot in its graph.
    let slot: Int
    /// The values of the declared dependencies, in the order of ``declared`` (`nil`: no value).
    let dependencies: [AnyServiceBox?]
    /// The names of the declared dependencies.
    let declared: [String]
    /// Positions in ``declared`` by name, only for nodes with many dependencies, where a scan
    /// per read would make reading them all quadratic.
    private let positions: [String: Int]?
    let redactor: Redactor
    /// The scope instance the node is built in (`"push#notification-42"`), or `nil` for the app.
    public let scopeInstance: String?
    /// The scope instance's parameters.
    let parameters: ScopeParameters
    /// The groups the node depends on: members' positions in ``dependencies``.
    let groups: [String: [Int]]

    init(
        serviceName: String, slot: Int, options: ServiceOptions, generation: Int, attempt: Int, run: Int,
        runInGeneration: Int? = nil, dependencies: [AnyServiceBox?], declared: [String], redactor: Redactor,
        scopeInstance: String? = nil, parameters: ScopeParameters = ScopeParameters(), groups: [String: [Int]] = [:]
    ) {
        self.scopeInstance = scopeInstance
        self.parameters = parameters
        self.groups = groups
        precondition(dependencies.count == declared.count, "one value (or nil) per declared dependency")
        self.serviceName = serviceName
        self.options = options
        self.generation = generation
        self.attempt = attempt
        self.run = run
        self.runInGeneration = runInGeneration ?? run
        self.slot = slot
        self.dependencies = dependencies
        self.declared = declared
        self.positions =
            declared.count > 32
            ? Dictionary(declared.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : nil
        self.redactor = redactor
    }

    /// Reads a declared dependency.
    /// - Throws: ``ServiceLookupError`` when `key` is not in the node's `dependsOn` or has another type.
    public func resolve<Value>(_ key: ServiceKey<Value>) throws(ServiceLookupError) -> Value {
        // A node declares a few dependencies: a scan of their names costs less than building
        // a dictionary for every node run, and most providers read each dependency once.
        let index = if let positions { positions[key.name] } else { declared.firstIndex(of: key.name) }
        guard let index, let box = dependencies[index] else {
            throw .undeclared(key.name, reader: "service '\(serviceName)'", declared: declared)
        }
        guard let value = box.anyValue as? Value else {
            throw .typeMismatch(key.name, expected: Value.self, actual: box.valueType)
        }
        return value
    }

    /// The values of every member of `group`, in declaration order (DESIGN §10).
    /// - Throws: ``ServiceLookupError`` when the node does not depend on the group
    ///   (`"group:<name>"` in its dependsOn) or a member's value has another type.
    public func group<Value>(_ group: ServiceGroup<Value>) throws(ServiceLookupError) -> [Value] {
        guard let positions = groups[group.name] else {
            throw .undeclared(group.dependency, reader: "service '\(serviceName)'", declared: declared)
        }
        var values: [Value] = []
        values.reserveCapacity(positions.count)
        for position in positions {
            guard let box = dependencies[position] else {
                throw .undeclared(declared[position], reader: "service '\(serviceName)'", declared: declared)
            }
            guard let value = box.anyValue as? Value else {
                throw .typeMismatch(declared[position], expected: Value.self, actual: box.valueType)
            }
            values.append(value)
        }
        return values
    }

    /// Reads a declared dependency; the same as ``resolve(_:)``.
    public subscript<Value>(key: ServiceKey<Value>) -> Value {
        get throws(ServiceLookupError) { try resolve(key) }
    }

    /// Reads a parameter of the scope instance the node is built in (DESIGN §9).
    /// - Throws: ``ScopeParameterError`` (permanent) when the instance was opened without it, with
    ///   another type, or the node is an app service.
    public func parameter<Value>(_ key: ScopeParameter<Value>) throws(ScopeParameterError) -> Value {
        guard let instance = scopeInstance else { throw .notInScope(key.name, service: serviceName) }
        guard let value = parameters.anyValue(key.name) else {
            throw .missing(
                key.name, type: Value.self, service: serviceName, instance: instance, given: parameters.names)
        }
        guard let typed = value as? Value else {
            throw .wrongType(
                key.name, expected: Value.self, actual: type(of: value), service: serviceName, instance: instance)
        }
        return typed
    }

    /// Marks `secret` (a token, a password) so it is redacted from every trace and error.
    public func registerSecret(_ secret: String) { redactor.register(secret) }
}
