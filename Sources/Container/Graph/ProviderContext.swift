/// What a provider receives: its node's name, options, and the values of the services it
/// declared in `dependsOn`, with typed access.
///
/// ```swift
/// let config = try context[.configuration]
/// ```
///
/// Reading a service the node did not declare throws ``AppServices/LookupError`` (`.undeclared`),
/// so a provider cannot depend on something the graph does not know about.
public struct ProviderContext: Sendable {
    /// What every node run of one build shares: the generation, the attempt, the scope instance
    /// and its parameters, the redactor its errors go through, and the values its nodes read.
    /// One object per build.
    final class BuildInfo: Sendable {
        let generation: Int
        let attempt: Int
        /// The scope instance being built (`"push#notification-42"`), or `nil` for the app.
        let scopeInstance: String?
        let parameters: ScopeParameters
        let redactor: Redactor
        let values: BuildValues
        /// The container's supplied inputs (`nil` in a build that has none to read).
        let inputs: InputStore?

        init(
            generation: Int, attempt: Int, scopeInstance: String?, parameters: ScopeParameters, redactor: Redactor,
            values: BuildValues, inputs: InputStore? = nil
        ) {
            self.inputs = inputs
            self.generation = generation
            self.attempt = attempt
            self.scopeInstance = scopeInstance
            self.parameters = parameters
            self.redactor = redactor
            self.values = values
        }
    }

    /// The node being built.
    let node: ServiceGraph.Node
    /// The build running the node.
    let build: BuildInfo
    /// This provider run within the build's retries of this node (1-based).
    public let run: Int
    /// This provider run of the node within its generation, counting every run of every
    /// attempt and retry (1-based); a new generation starts again at 1.
    public let runInGeneration: Int
    /// Positions in ``declared`` by name, only for nodes with many dependencies, where a scan
    /// per read would make reading them all quadratic.
    private let positions: [String: Int]?

    init(node: ServiceGraph.Node, build: BuildInfo, run: Int, runInGeneration: Int) {
        self.node = node
        self.build = build
        self.run = run
        self.runInGeneration = runInGeneration
        let declared = node.dependencyNames
        self.positions =
            declared.count > 32
            ? Dictionary(declared.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : nil
    }

    /// The node's name.
    public var serviceName: String { node.name }
    /// The node's options.
    public var options: ServiceOptions { node.options }

    /// The node's settings, as `provider` read them from its options when the graph was
    /// validated (``ServiceProvider/settings(from:)``): a provider's ``ServiceProvider/make(_:)``
    /// calls `try context.settings(for: self)` and never reads its options again.
    ///
    /// ```swift
    /// func make(_ context: ProviderContext) async throws -> Database {
    ///     let settings = try context.settings(for: self)   // SQLiteOptions, read at validation
    ///     return try await Database.open(path: settings.path)
    /// }
    /// ```
    ///
    /// The type is the provider's ``ServiceProvider/Settings``, so there is no wrong type to ask
    /// for. A node validated by another provider (one that wraps `provider` and forwards its
    /// ``ServiceProvider/make(_:)`` but not its settings) holds other settings: then `provider`
    /// reads the options now.
    /// - Throws: what `provider`'s ``ServiceProvider/settings(from:)`` throws, in that case only.
    public func settings<Provider: ServiceProvider>(for provider: Provider) throws -> Provider.Settings {
        if let settings = node.settings as? Provider.Settings { return settings }
        if node.settings == nil, let options = node.options as? Provider.Settings { return options }
        return try provider.settings(from: node.options)
    }
    /// The generation being built.
    public var generation: Int { build.generation }
    /// The container's build attempt within the generation (1-based).
    public var attempt: Int { build.attempt }
    /// The scope instance the node is built in (`"push#notification-42"`), or `nil` for the app.
    public var scopeInstance: String? { build.scopeInstance }
    /// The names of the declared dependencies.
    var declared: [String] { node.dependencyNames }
    var redactor: Redactor { build.redactor }
    /// The scope instance's parameters.
    var parameters: ScopeParameters { build.parameters }
    /// The groups the node depends on: members' positions in ``declared``.
    var groups: [String: [Int]] { node.groups }

    /// Reads a declared dependency.
    /// - Throws: ``AppServices/LookupError`` when `key` is not in the node's `dependsOn` or has another type.
    ///
    /// Inlined into the provider, where `Value` is known: the usual read (the exact type) then
    /// costs no generic metadata lookup, which the runtime would make per read otherwise.
    @inlinable
    public func resolve<Value>(_ key: ServiceKey<Value>) throws(AppServices.LookupError) -> Value {
        let box = try dependency(named: key.name)
        if box.typeID == ObjectIdentifier(Value.self) { return unsafeDowncast(box, to: ServiceBox<Value>.self).value }
        return try cast(box, to: key)
    }

    /// The value of the declared dependency called `name`.
    @usableFromInline
    func dependency(named name: String) throws(AppServices.LookupError) -> AnyServiceBox {
        // A node declares a few dependencies: a scan of their names costs less than building
        // a dictionary for every node run, and most providers read each dependency once.
        let declared = node.dependencyNames
        let index = if let positions { positions[name] } else { declared.firstIndex(of: name) }
        guard let index else { throw .undeclared(name, reader: "service '\(serviceName)'", declared: declared) }
        guard let box = dependency(at: index) else { throw .absent(name, reader: "service '\(serviceName)'") }
        return box
    }

    /// The value of the dependency at `position` in the node's declaration. The node started
    /// once each of its dependencies had a value or, for an optional one, settled without:
    /// `nil` only for an optional dependency that was not built.
    func dependency(at position: Int) -> AnyServiceBox? {
        build.values[node.dependencies[position]]
    }

    /// The value the app supplied for this input node, once it has (see ``ServiceContainer/supply(_:_:)``).
    func inputValue<Value: Sendable>(as type: Value.Type) async throws -> Value {
        guard let inputs = build.inputs else { throw InputStore.Closed(name: serviceName) }
        let value = try await inputs.value(
            of: serviceName, type: ObjectIdentifier(Value.self), generation: build.generation)
        guard let typed = value as? Value else {
            throw AppServices.LookupError.typeMismatch(serviceName, expected: Value.self, actual: Swift.type(of: value))
        }
        return typed
    }

    /// Reads a declared dependency on an optional service (`"<name>?"` in `dependsOn`): `nil`
    /// when it was not built (see <doc:DemandDrivenStartUp>).
    /// - Throws: ``AppServices/LookupError`` when `key` is not in the node's `dependsOn` or has another type.
    public func optional<Value>(_ key: ServiceKey<Value>) throws(AppServices.LookupError) -> Value? {
        let declared = node.dependencyNames
        let index = if let positions { positions[key.name] } else { declared.firstIndex(of: key.name) }
        guard let index else { throw .undeclared(key.name, reader: "service '\(serviceName)'", declared: declared) }
        guard let box = dependency(at: index) else { return nil }
        if box.typeID == ObjectIdentifier(Value.self) { return unsafeDowncast(box, to: ServiceBox<Value>.self).value }
        return try cast(box, to: key)
    }

    /// `box`'s value read as another type than its own (a protocol existential read as another,
    /// a subclass read as its superclass): a dynamic cast.
    @usableFromInline
    func cast<Value>(_ box: AnyServiceBox, to key: ServiceKey<Value>) throws(AppServices.LookupError) -> Value {
        guard let value = box.anyValue as? Value else {
            throw .typeMismatch(key.name, expected: Value.self, actual: box.valueType)
        }
        return value
    }

    /// The values of every member of `group`, in declaration order (see <doc:TypedDependencies>).
    /// - Throws: ``AppServices/LookupError`` when the node does not depend on the group
    ///   (`"group:<name>"` in its dependsOn) or a member's value has another type.
    public func group<Value>(_ group: ServiceGroup<Value>) throws(AppServices.LookupError) -> [Value] {
        guard let positions = groups[group.name] else {
            throw .undeclared(group.dependency, reader: "service '\(serviceName)'", declared: declared)
        }
        var values: [Value] = []
        values.reserveCapacity(positions.count)
        // An optional member that was not built is left out.
        for position in positions {
            guard let box = dependency(at: position) else { continue }
            guard let value = box.anyValue as? Value else {
                throw .typeMismatch(declared[position], expected: Value.self, actual: box.valueType)
            }
            values.append(value)
        }
        return values
    }

    /// Reads a declared dependency; the same as ``resolve(_:)``.
    public subscript<Value>(key: ServiceKey<Value>) -> Value {
        get throws(AppServices.LookupError) { try resolve(key) }
    }

    /// Reads a parameter of the scope instance the node is built in (see <doc:Scopes>).
    /// - Throws: ``ScopeParameters/LookupError`` (permanent) when the instance was opened without it, with
    ///   another type, or the node is an app service.
    public func parameter<Value>(_ key: ScopeParameters.Key<Value>) throws(ScopeParameters.LookupError) -> Value {
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
