/// The declaration of one service: its name, provider, dependencies and per-node policy.
///
/// Config files produce specs; code can declare them directly:
///
/// ```swift
/// ServiceSpec(.database, dependsOn: ["configuration"]) { context in
///     try await Database.open(try context[.configuration].databasePath)
/// }
/// ```
public struct ServiceSpec: Sendable {
    /// The provider of a spec: an id looked up in a ``ProviderRegistry``, or a provider given inline.
    public enum ProviderReference: Sendable {
        /// A provider id, resolved through the registry during validation.
        case id(String)
        /// A provider given directly.
        case inline(AnyServiceProvider)

        /// The provider's id.
        public var id: String {
            switch self {
            case .id(let id): id
            case .inline(let provider): provider.id
            }
        }
    }

    /// The declaration's fields, shared by the copies of a spec until one of them changes one
    /// (copy-on-write): validation copies each spec several times, and a copy is one retain
    /// rather than one per field.
    private var storage: Storage

    /// The service's unique name.
    public var name: String {
        get { storage.fields.name }
        set { change { $0.name = newValue } }
    }
    /// Who makes the value.
    public var provider: ProviderReference {
        get { storage.fields.provider }
        set { change { $0.provider = newValue } }
    }
    /// Names of the services this one needs, all of which must succeed before it starts.
    public var dependsOn: [String] {
        get { storage.fields.dependsOn }
        set { change { $0.dependsOn = newValue } }
    }
    /// Options handed to the provider.
    public var options: ServiceOptions {
        get { storage.fields.options }
        set { change { $0.options = newValue } }
    }
    /// The longest one provider run may take; exceeding it is a transient failure and cancels
    /// the run. A provider that ignores the cancellation and still returns a value has
    /// committed its effect: the node then ends `succeeded` (see <doc:CoordinatorRules>), late.
    /// Cancellation is cooperative, so a provider that never checks it is never cut off.
    public var timeout: Duration? {
        get { storage.fields.timeout }
        set { change { $0.timeout = newValue } }
    }
    /// Retries of transient failures within one build.
    public var retry: RetryPolicy {
        get { storage.fields.retry }
        set { change { $0.retry = newValue } }
    }
    /// How errors of this node that do not classify themselves are classified (overrides the provider).
    public var defaultFailure: FailureKind? {
        get { storage.fields.defaultFailure }
        set { change { $0.defaultFailure = newValue } }
    }
    /// How long the value lives: the app (default) or a scope instance.
    public var lifetime: Lifetime {
        get { storage.fields.lifetime }
        set { change { $0.lifetime = newValue } }
    }
    /// The group this service contributes its value to (see <doc:TypedDependencies>), if any.
    public var group: String? {
        get { storage.fields.group }
        set { change { $0.group = newValue } }
    }
    /// When the service is built: by `start()` (``StartPolicy/eager``, the default), after the
    /// first frame (``StartPolicy/deferred``), or only when a request needs it (``StartPolicy/lazy``).
    public var start: StartPolicy {
        get { storage.fields.start }
        set { change { $0.start = newValue } }
    }
    /// Whether the app starts without it: its failure never fails a request; snapshots then
    /// lack it and say why (``AppServices/absence(of:)``). Its dependents depend on it with
    /// `"<name>?"` and read it with ``ProviderContext/optional(_:)`` (see <doc:DemandDrivenStartUp>).
    public var isOptional: Bool {
        get { storage.fields.isOptional }
        set { change { $0.isOptional = newValue } }
    }
    /// Where the provider runs: on the main actor (``ServiceSpec/Isolation/main``) or on the build's
    /// threads; `nil` (the default): where the provider says (``ServiceProvider/isolation``).
    /// A config file says `"isolation": "main"` (see <doc:LaunchTiers>).
    public var isolation: Isolation? {
        get { storage.fields.isolation }
        set { change { $0.isolation = newValue } }
    }
    /// The lowest priority the provider runs at; a request waiting for the service raises it to
    /// its own. `nil` (the default): ``ServicePriority/background`` for a deferred service, the
    /// priority of the requests that need it otherwise (see ``ServicePriority``).
    public var priority: ServicePriority? {
        get { storage.fields.priority }
        set { change { $0.priority = newValue } }
    }
    /// Whether the service must be readable with ``ServiceContainer/resolveNow(_:as:isolation:)``: validation
    /// checks that it and everything it depends on are synchronous (config `"sync": true`; see
    /// <doc:LaunchTiers>). Not part of the declaration a reload compares.
    public var sync: Bool {
        get { storage.fields.sync }
        set { change { $0.sync = newValue } }
    }
    /// Dependencies declared with typed keys: validation checks that each service's provider
    /// makes the key's type. Their names are in ``dependsOn`` too.
    public var typedDependencies: [AnyServiceKey] {
        get { storage.fields.typedDependencies }
        set { change { $0.typedDependencies = newValue } }
    }
    /// Where the spec was declared, for error messages.
    public var location: ConfigLocation? {
        get { storage.fields.location }
        set { change { $0.location = newValue } }
    }

    /// Creates a spec naming a provider by id.
    public init(
        name: String, provider: String, dependsOn: [String] = [], options: ServiceOptions = ServiceOptions(),
        timeout: Duration? = nil, retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil,
        location: ConfigLocation? = nil
    ) {
        storage = Storage(
            Fields(
                name: name, provider: .id(provider), dependsOn: dependsOn, options: options, timeout: timeout,
                retry: retry, defaultFailure: defaultFailure, location: location))
    }

    /// Creates a spec with an inline provider.
    public init<Provider: ServiceProvider>(
        name: String, provider: Provider, dependsOn: [String] = [], options: ServiceOptions = ServiceOptions(),
        timeout: Duration? = nil, retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil,
        location: ConfigLocation? = nil
    ) {
        self.init(
            name: name, provider: AnyServiceProvider(provider), dependsOn: dependsOn, options: options,
            timeout: timeout, retry: retry, defaultFailure: defaultFailure, location: location)
    }

    /// Creates a spec with an erased inline provider (a config's input, whose type the file names).
    public init(
        name: String, provider: AnyServiceProvider, dependsOn: [String] = [],
        options: ServiceOptions = ServiceOptions(),
        timeout: Duration? = nil, retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil,
        location: ConfigLocation? = nil
    ) {
        self.init(
            name: name, provider: provider.id, dependsOn: dependsOn, options: options, timeout: timeout,
            retry: retry, defaultFailure: defaultFailure, location: location)
        self.provider = .inline(provider)
    }

    /// Declares the service of `key`, made by a closure, in code.
    ///
    /// - Parameters:
    ///   - key: the service's name and value type.
    ///   - dependsOn: the services (and `group:<name>` groups) the closure reads through its context.
    ///   - options: handed to the closure as ``ProviderContext/options``.
    ///   - timeout: the longest one run of the closure may take (see ``timeout``); `nil`: no limit.
    ///   - retry: retries of transient failures within one build; none by default.
    ///   - defaultFailure: how errors that do not classify themselves count (see ``defaultFailure``).
    ///   - lifetime: the app (default) or a scope.
    ///   - group: the group the value is contributed to, if any.
    ///   - start: when the service is built (see ``StartPolicy``); eager by default.
    ///   - priority: the lowest priority it is built at (see ``priority``); `nil`: from `start`.
    ///   - tearDown: releases the value when its generation is retired.
    ///   - fileID: where the spec is declared, for error messages; leave the default.
    ///   - line: where the spec is declared, for error messages; leave the default.
    ///   - make: makes the value, on the executor the build gives it (the main actor when
    ///     ``isolation`` is ``ServiceSpec/Isolation/main``).
    public init<Value: Sendable>(
        _ key: ServiceKey<Value>, dependsOn: [String] = [], options: ServiceOptions = ServiceOptions(),
        timeout: Duration? = nil, retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil,
        lifetime: Lifetime = .app, group: String? = nil, start: StartPolicy = .eager,
        priority: ServicePriority? = nil,
        tearDown: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID,
        line: Int = #line, make: nonisolated(nonsending) @escaping @Sendable (ProviderContext) async throws -> Value
    ) {
        self.init(
            name: key.name,
            provider: AnyServiceProvider(closure: ClosureProvider(id: "closure", tearDown: tearDown, make: make)),
            dependsOn: dependsOn, options: options, timeout: timeout, retry: retry, defaultFailure: defaultFailure,
            location: ConfigLocation(file: fileID, line: line))
        self.lifetime = lifetime
        self.group = group
        self.start = start
        self.priority = priority
    }

    /// Declares the service of `key`, made on the main actor by a `@MainActor` closure: its value
    /// may belong to the main actor (wrap one that is not `Sendable` in ``MainActorBound``).
    ///
    /// ```swift
    /// ServiceSpec(mainActor: .router, dependsOn: ["settings"]) { context in
    ///     Router(settings: try context[.settings])   // a @MainActor class
    /// }
    /// ```
    ///
    /// The build runs its ready main-actor nodes one after another in one hop to the main actor,
    /// while the other nodes go on; `tearDown` runs on the main actor too (see
    /// <doc:LaunchTiers>). The parameters are those of
    /// ``init(_:dependsOn:options:timeout:retry:defaultFailure:lifetime:group:start:priority:tearDown:fileID:line:make:)-(_,[String],_,_,_,_,_,_,_,_,_,_,_,_)``.
    public init<Value: Sendable>(
        mainActor key: ServiceKey<Value>, dependsOn: [String] = [], options: ServiceOptions = ServiceOptions(),
        timeout: Duration? = nil, retry: RetryPolicy = .none, defaultFailure: FailureKind? = nil,
        lifetime: Lifetime = .app, group: String? = nil, start: StartPolicy = .eager,
        priority: ServicePriority? = nil,
        tearDown: (@MainActor @Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID,
        line: Int = #line, make: @escaping @MainActor @Sendable (ProviderContext) async throws -> Value
    ) {
        // Called on the main actor, where the build runs a main-actor node and tears its value down.
        let onMain: nonisolated(nonsending) @Sendable (ProviderContext) async throws -> Value = make
        var release: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)?
        if let tearDown { release = { @Sendable value in try await tearDown(value) } }
        self.init(
            key, dependsOn: dependsOn, options: options, timeout: timeout, retry: retry,
            defaultFailure: defaultFailure, lifetime: lifetime, group: group, start: start, priority: priority,
            tearDown: release, fileID: fileID, line: line, make: onMain)
        self.isolation = .main
    }

    /// Declares the service of `key` in code with **typed** dependencies: a typo or a changed
    /// type is a validation error, not a surprise at run time.
    ///
    /// ```swift
    /// ServiceSpec(.database, dependsOn: .settings, .clock) { context in
    ///     try await Database.open(try context[.settings].databasePath, clock: try context[.clock])
    /// }
    /// ```
    ///
    /// Validation checks that each dependency exists and that its provider makes the key's type.
    // Disfavoured: with no dependency at all, the plain initializer is the one meant.
    @_disfavoredOverload
    public init<Value: Sendable, each Dependency: Sendable>(
        _ key: ServiceKey<Value>, dependsOn dependencies: repeat ServiceKey<each Dependency>,
        options: ServiceOptions = ServiceOptions(), timeout: Duration? = nil, retry: RetryPolicy = .none,
        defaultFailure: FailureKind? = nil, lifetime: Lifetime = .app, group: String? = nil,
        start: StartPolicy = .eager, priority: ServicePriority? = nil,
        tearDown: (nonisolated(nonsending) @Sendable (Value) async throws -> Void)? = nil,
        fileID: String = #fileID, line: Int = #line,
        make: nonisolated(nonsending) @escaping @Sendable (ProviderContext) async throws -> Value
    ) {
        self.init(
            key, dependsOn: Self.typed(repeat each dependencies).map(\.name), options: options, timeout: timeout,
            retry: retry, defaultFailure: defaultFailure, lifetime: lifetime, group: group, start: start,
            priority: priority, tearDown: tearDown, fileID: fileID, line: line, make: make)
        self.typedDependencies = Self.typed(repeat each dependencies)
    }

    /// Declares the service of `key`, made on the main actor by a `@MainActor` closure, with
    /// **typed** dependencies (see ``init(mainActor:dependsOn:options:timeout:retry:defaultFailure:lifetime:group:start:priority:tearDown:fileID:line:make:)-(_,[String],_,_,_,_,_,_,_,_,_,_,_,_)``).
    // Disfavoured: with no dependency at all, the plain initializer is the one meant.
    @_disfavoredOverload
    public init<Value: Sendable, each Dependency: Sendable>(
        mainActor key: ServiceKey<Value>, dependsOn dependencies: repeat ServiceKey<each Dependency>,
        options: ServiceOptions = ServiceOptions(), timeout: Duration? = nil, retry: RetryPolicy = .none,
        defaultFailure: FailureKind? = nil, lifetime: Lifetime = .app, group: String? = nil,
        start: StartPolicy = .eager, priority: ServicePriority? = nil,
        tearDown: (@MainActor @Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID,
        line: Int = #line, make: @escaping @MainActor @Sendable (ProviderContext) async throws -> Value
    ) {
        self.init(
            mainActor: key, dependsOn: Self.typed(repeat each dependencies).map(\.name), options: options,
            timeout: timeout, retry: retry, defaultFailure: defaultFailure, lifetime: lifetime, group: group,
            start: start, priority: priority, tearDown: tearDown, fileID: fileID, line: line, make: make)
        self.typedDependencies = Self.typed(repeat each dependencies)
    }

    /// The erased keys of typed dependencies.
    private static func typed<each Dependency: Sendable>(
        _ dependencies: repeat ServiceKey<each Dependency>
    ) -> [AnyServiceKey] {
        var typed: [AnyServiceKey] = []
        for dependency in repeat each dependencies { typed.append(dependency.erased) }
        return typed
    }
}

extension ServiceSpec {
    /// The stored fields of a spec.
    struct Fields: Sendable {
        var name: String
        var provider: ProviderReference
        var dependsOn: [String]
        var options: ServiceOptions
        var timeout: Duration?
        var retry: RetryPolicy
        var defaultFailure: FailureKind?
        var lifetime: Lifetime = .app
        var group: String?
        var start: StartPolicy = .eager
        var isOptional: Bool = false
        var isolation: Isolation?
        var priority: ServicePriority?
        var sync: Bool = false
        var typedDependencies: [AnyServiceKey] = []
        var location: ConfigLocation?
    }

    /// A spec's fields in a reference, so copies share them.
    final class Storage: @unchecked Sendable {
        // Sendable: `fields` is written only by `ServiceSpec.change(_:)`, and only while the
        // spec that writes holds the sole reference (`isKnownUniquelyReferenced`, as an Array
        // does): a storage that another copy, and so another thread, can see is never written.
        var fields: Fields

        init(_ fields: Fields) { self.fields = fields }
    }

    /// Changes the fields, in place when this spec is the only one holding them, otherwise in a
    /// storage of its own.
    private mutating func change(_ body: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        body(&storage.fields)
    }
}

extension ServiceSpec {
    /// Declares the service of `key`, made by a synchronous closure, in code: it can be read
    /// with ``ServiceContainer/resolveNow(_:as:isolation:)`` when everything it depends on is synchronous too
    /// (see <doc:LaunchTiers>). The closure must return promptly; it has no timeout and no
    /// retries (a failure counts for the build, like any other).
    ///
    /// ```swift
    /// ServiceSpec.synchronous(.settings) { _ in Settings() }
    /// ```
    public static func synchronous<Value: Sendable>(
        _ key: ServiceKey<Value>, dependsOn: [String] = [], options: ServiceOptions = ServiceOptions(),
        lifetime: Lifetime = .app, group: String? = nil, start: StartPolicy = .eager, sync: Bool = false,
        tearDown: (@Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID, line: Int = #line,
        make: @escaping @Sendable (ProviderContext) throws -> Value
    ) -> ServiceSpec {
        var spec = ServiceSpec(
            name: key.name, provider: SynchronousClosureProvider(id: "closure", tearDown: tearDown, make: make),
            dependsOn: dependsOn, options: options, location: ConfigLocation(file: fileID, line: line))
        spec.lifetime = lifetime
        spec.group = group
        spec.start = start
        spec.sync = sync
        return spec
    }

    /// Declares the service of `key`, made by a synchronous `@MainActor` closure: on the main
    /// actor, by ``ServiceContainer/resolveNow(_:as:isolation:)`` called there, or by a build in
    /// its main-actor hop (see <doc:LaunchTiers>). Its teardown runs on the main actor too.
    ///
    /// ```swift
    /// ServiceSpec.synchronous(mainActor: .theme) { _ in Theme() }
    /// ```
    public static func synchronous<Value: Sendable>(
        mainActor key: ServiceKey<Value>, dependsOn: [String] = [], options: ServiceOptions = ServiceOptions(),
        lifetime: Lifetime = .app, group: String? = nil, start: StartPolicy = .eager, sync: Bool = false,
        tearDown: (@MainActor @Sendable (Value) async throws -> Void)? = nil, fileID: String = #fileID,
        line: Int = #line, make: @escaping @MainActor @Sendable (ProviderContext) throws -> Value
    ) -> ServiceSpec {
        var release: (@Sendable (Value) async throws -> Void)?
        if let tearDown { release = { @Sendable value in try await tearDown(value) } }
        // The runtime calls it on the main actor only (the node is declared `.main`).
        var spec = synchronous(
            key, dependsOn: dependsOn, options: options, lifetime: lifetime, group: group, start: start, sync: sync,
            tearDown: release, fileID: fileID, line: line
        ) { context in try MainActor.assumeIsolated { try make(context) } }
        spec.isolation = .main
        return spec
    }
}
