import Synchronization

/// A validated dependency graph of services, ready to be built by a ``ServiceContainer``.
///
/// Creating a graph validates it completely before anything runs (see <doc:CoordinatorRules>);
/// the checks are in `ServiceGraph+Validation.swift`. A graph is immutable and can back any number of containers.
///
/// ```swift
/// let graph = try ServiceGraph([
///     ServiceSpec(.configuration) { _ in AppConfiguration() },
///     ServiceSpec(.database, dependsOn: ["configuration"]) { try Database(try $0[.configuration]) },
/// ])
/// ```
public final class ServiceGraph: Sendable {
    /// One validated node. Indices are slots: the position of the spec in declaration order.
    /// A class, so the scheduler hands nodes around without copying (and retaining) every field.
    final class Node: Sendable {
        let name: String
        let provider: AnyServiceProvider
        let dependencies: [Int]
        /// The names of ``dependencies``, as the provider's context reports them.
        let dependencyNames: [String]
        /// The node's options, as declared (read from ``declaration``, not kept twice).
        var options: ServiceOptions { declaration.options }
        /// What the provider read the options into at validation (``ServiceProvider/settings(from:)``),
        /// read back by ``ProviderContext/settings(for:)``; `nil` when they are the options themselves.
        let settings: (any Sendable)?
        let timeout: Duration?
        let retry: RetryPolicy
        let defaultFailure: FailureKind?
        /// Where the service was declared (read from ``declaration``).
        var location: ConfigLocation? { declaration.location }
        /// The app or the scope the value lives in.
        let lifetime: ServiceSpec.Lifetime
        /// In a scope's part: an app service whose value comes from the app snapshot the scope
        /// instance is built on; it is never built, kept or torn down by the scope.
        let isExternal: Bool
        /// The groups the node depends on: their members' positions in ``dependencies``, in
        /// declaration order.
        let groups: [String: [Int]]
        /// The spec as it was declared (its provider resolved, `group:` entries and typed
        /// dependencies as written): what ``ServiceGraph/overriding(_:)`` declares again.
        let declaration: ServiceSpec

        /// Whether the provider runs on the main actor (the spec's isolation, else the
        /// provider's). Not in the fingerprint, like ``start``: it says where the value is made.
        let runsOnMainActor: Bool
        /// The lowest priority the node runs at (a `TaskPriority.rawValue`): the declared one,
        /// background for a deferred service, 0 (none) otherwise. Not in the fingerprint either.
        let priorityFloor: UInt8

        /// When the node is built. Not in the fingerprint: it says when the value is made, not
        /// what it is, so a reload that changes only a policy keeps the value.
        var start: StartPolicy { declaration.start }
        /// Whether the app supplies its value (an input node, ``ServiceSpec/input(_:start:location:)``).
        var isInput: Bool { provider.isInput }
        /// Whether requests succeed without it. Not in the fingerprint, like ``start``.
        var isOptional: Bool { declaration.isOptional }
        /// Whether its provider makes the value without suspending, with no timeout or retries to
        /// keep: ``ServiceContainer/resolveNow(_:as:isolation:)`` may run it on the caller's thread.
        var isSynchronous: Bool { provider.makeNow != nil && timeout == nil && retry.maxAttempts <= 1 }

        init(
            name: String, provider: AnyServiceProvider, dependencies: [Int], dependencyNames: [String],
            settings: (any Sendable)? = nil, timeout: Duration?, retry: RetryPolicy,
            defaultFailure: FailureKind?, lifetime: ServiceSpec.Lifetime = .app,
            isExternal: Bool = false,
            groups: [String: [Int]] = [:], declaration: ServiceSpec
        ) {
            self.declaration = declaration
            runsOnMainActor = (declaration.isolation ?? provider.isolation) == .main
            priorityFloor =
                declaration.priority?.rawValue
                ?? (declaration.start == .deferred ? ServicePriority.background.rawValue : 0)
            self.lifetime = lifetime
            self.isExternal = isExternal
            self.groups = groups
            self.name = name
            self.provider = provider
            self.dependencies = dependencies
            self.dependencyNames = dependencyNames
            self.settings = settings
            self.timeout = timeout
            self.retry = retry
            self.defaultFailure = defaultFailure
        }

        /// What ``ServiceGraph/changes(from:)`` compares: a digest of every field above but the
        /// dependencies' slots and the location (computed each time: the graph keeps them).
        var fingerprint: DeclarationFingerprint {
            DeclarationFingerprint.of(
                name: name, providerID: provider.id, valueType: provider.valueTypeID, dependencyNames: dependencyNames,
                options: options, timeout: timeout, retry: retry, defaultFailure: defaultFailure, lifetime: lifetime,
                isExternal: isExternal, isOptional: isOptional, groups: groups)
        }
    }

    let nodes: [Node]
    /// Each node's ``Node/fingerprint``, by slot: ``changes(from:)`` reads them without
    /// visiting (retaining) a node. Made on the first comparison (a reload's), not at
    /// validation: a graph that is never reloaded never pays for them.
    var fingerprints: [DeclarationFingerprint] {
        fingerprintCache.withLock { cache in
            if let cache { return cache }
            let made = nodes.map(\.fingerprint)
            cache = made
            return made
        }
    }
    private let fingerprintCache = Mutex<[DeclarationFingerprint]?>(nil)
    /// For each node, the nodes that depend on it.
    let dependents: SlotLists
    /// For each node, the nodes it depends on (``Node/dependencies``, without visiting, and
    /// retaining, a node).
    let dependencies: SlotLists
    /// Nodes such that every node comes after all its dependencies.
    let topologicalOrder: [Int]
    /// The position of each node in ``topologicalOrder``.
    let topologicalRank: [Int]
    /// The nodes this graph builds (slots below ``builtCount``) in topological order: what a
    /// build with every external value and nothing kept runs, made once per graph.
    let builtOrder: [Int]
    /// Each node's dependencies among the nodes this graph builds: how many a build with every
    /// external value and nothing kept waits for, made once per graph.
    let builtDependencyCounts: [Int32]
    let layout: ServiceLayout
    /// Every slot (made once per graph, not per scope instance).
    let allSlots: SlotSet
    /// What `start()` asks of a coordinator of this graph: the eager services and everything
    /// they depend on (for a scope part, also the app services its entry points read); every
    /// slot when no service declares another ``StartPolicy``.
    let eagerSlots: SlotSet
    /// What `startDeferred()` asks: the eager and the deferred services, with their dependencies.
    let deferredSlots: SlotSet
    /// Whether a service declares a start policy other than eager. Then an entry point (or a
    /// scope instance) asks only for what it needs; otherwise for every eager service, as
    /// `start()` does (see <doc:DemandDrivenStartUp>).
    public let declaresStartPolicies: Bool
    /// Whether a node this graph builds runs on the main actor (``ServiceSpec/Isolation/main``): only
    /// then does a build look at where its nodes run.
    let hasMainActorNodes: Bool
    /// Each node's ``Node/priorityFloor``, by slot; empty when no node has one (no declared
    /// priority, no deferred service). Apart from the nodes: a launch reads it without visiting one.
    let priorityFloors: [UInt8]
    /// Whether a service is optional (``ServiceSpec/isOptional``): then a request fails only
    /// for the nodes of its closure it reaches without passing an optional one.
    let hasOptionalServices: Bool
    /// Whether every build is for the eager services (no start policy, optional service or
    /// input): then the attempt budget counts the generation's builds (<doc:AttemptBudget>).
    let buildsAreForEagerServices: Bool
    /// The part of ``eagerSlots`` whose failure fails `start()`: reached without passing an
    /// optional service (``eagerSlots`` itself when no service is optional).
    let eagerRequired: SlotSet
    /// The same part of ``deferredSlots``.
    let deferredRequired: SlotSet
    /// For each node, an asynchronous node of its dependency closure (itself first), or -1 when
    /// the whole closure is synchronous (see ``isSynchronous(_:)``); empty when no node is
    /// synchronous.
    let firstAsync: [Int32]
    /// Secret option values of every node, redacted from traces and errors.
    let secrets: [String]
    /// Hides the graph's secrets (the values of every option marked secret, and their fragments)
    /// in any text: what the graph's containers trace and report starts from it, and an app can
    /// redact its own output with it (an entry point's error quoting a secret database path). One
    /// per graph: its automaton is built once, on its first use.
    public let redactor: Redactor
    /// The scope names the graph declares (see <doc:Scopes>), in declaration order (for a scope's
    /// part: the scopes nested in it).
    public let scopeNames: [String]
    /// The scopes the graph declares, with their parents, in declaration order.
    public let scopes: [Scope]
    /// Each nested scope's parent.
    let scopeParents: [String: String]
    /// Per scope, the services outside it that its entry points read (kept for ``overriding(_:)``).
    let scopeReads: [String: Set<String>]
    /// The nodes this graph builds: slots `0..<builtCount`; the others are external (a scope
    /// part's app services, at the end).
    let builtCount: Int
    /// The scope a part builds (`nil`: the app, or the whole declared graph).
    let scope: String?
    /// The app's part of a graph that declares scoped services; `nil` when it is the graph itself.
    private let appOnly: ServiceGraph?
    /// Each declared scope's part: its services, then the services of its parent chain they use
    /// (external). For a scope's part, the parts of the scopes nested in it.
    let scopeParts: [String: ServiceGraph]
    /// In a scope's part, where the external nodes that only its nested scopes use begin (its
    /// instances hand them on and never ask for them); ``count`` when there are none.
    let relayedFrom: Int
    /// The services replaced by ``overriding(_:)`` (empty for a graph as declared).
    let overridden: Set<String>
    /// For a scope part: the slots of its external nodes in the app's part, and that part's
    /// layout id (a scope instance fetches its app values by slot, without hashing a name);
    /// `nil` when unknown.
    let appSlots: (layoutID: UInt32, slots: [Int])?

    /// A graph of `nodes`, split into its app and scope parts when it declares scopes.
    convenience init(
        nodes: [Node], scopes: [Scope] = [], scopeReads: [String: Set<String>] = [:], overridden: Set<String> = []
    ) {
        let hasScoped = nodes.contains { $0.lifetime != .app }
        let appOnly = hasScoped ? Self.part(of: nodes, scope: nil, reads: []) : nil
        self.init(
            nodes: nodes, scopes: scopes, builtCount: nodes.count, scope: nil, appOnly: appOnly,
            scopeParts: Self.parts(of: nodes, scopes: scopes, reads: scopeReads, app: appOnly?.layout),
            scopeReads: scopeReads, overridden: overridden)
    }

    init(
        nodes: [Node], scopes: [Scope], builtCount: Int, scope: String?, appOnly: ServiceGraph?,
        scopeParts: [String: ServiceGraph], scopeReads: [String: Set<String>] = [:], overridden: Set<String> = [],
        relayedFrom: Int? = nil, appSlots: (layoutID: UInt32, slots: [Int])? = nil
    ) {
        self.overridden = overridden
        self.appSlots = appSlots
        self.scopes = scopes
        self.scopeNames = scopes.map(\.name)
        var parents: [String: String] = [:]
        for declared in scopes { if let parent = declared.parent { parents[declared.name] = parent } }
        self.scopeParents = parents
        self.scopeReads = scopeReads
        self.relayedFrom = relayedFrom ?? nodes.count
        self.builtCount = builtCount
        self.scope = scope
        self.appOnly = appOnly
        self.scopeParts = scopeParts
        self.nodes = nodes
        let dependencies = SlotLists(
            count: nodes.count, entries: nodes.reduce(0) { $0 + $1.dependencies.count }, { nodes[$0].dependencies })
        self.dependencies = dependencies
        let dependents = SlotLists(inverting: dependencies)
        self.dependents = dependents
        let order = Self.topologicalOrder(of: nodes, dependents: dependents)
        precondition(order.count == nodes.count, "ServiceGraph.init requires an acyclic graph")
        self.topologicalOrder = order
        var rank = [Int](repeating: 0, count: nodes.count)
        for (position, node) in order.enumerated() { rank[node] = position }
        self.topologicalRank = rank
        builtOrder = builtCount == nodes.count ? order : order.filter { $0 < builtCount }
        builtDependencyCounts = nodes.map { node in
            Int32(truncatingIfNeeded: node.dependencies.count { $0 < builtCount })
        }
        let allSlots = SlotSet.all(nodes.count)
        self.allSlots = allSlots
        declaresStartPolicies = nodes.contains { $0.start != .eager }
        hasOptionalServices = nodes.contains(where: \.isOptional)
        buildsAreForEagerServices = !declaresStartPolicies && !hasOptionalServices && !nodes.contains(where: \.isInput)
        hasMainActorNodes = nodes[..<builtCount].contains(where: \.runsOnMainActor)
        let floors = nodes.map(\.priorityFloor)
        priorityFloors = floors.contains { $0 != 0 } ? floors : []
        let optionals = hasOptionalServices ? nodes.map(\.isOptional) : []
        // A part's external nodes that none of its own depends on are read by its entry points
        // (those its nested scopes alone use come last, and are never asked for by it).
        let read = (builtCount..<(relayedFrom ?? nodes.count)).filter { slot in dependents[slot].isEmpty }
        func roots(_ policies: Set<StartPolicy>) -> [Int] {
            (0..<builtCount).filter { policies.contains(nodes[$0].start) } + read
        }
        if !declaresStartPolicies {
            self.layout = ServiceLayout(names: nodes.map(\.name), optionals: optionals)
            eagerSlots = allSlots
            deferredSlots = allSlots
        } else {
            self.layout = ServiceLayout(names: nodes.map(\.name), policies: nodes.map(\.start), optionals: optionals)
            eagerSlots = Self.closure(of: roots([.eager]), following: dependencies)
            deferredSlots = Self.closure(of: roots([.eager, .deferred]), following: dependencies)
        }
        if hasOptionalServices {
            eagerRequired = Self.required(from: roots([.eager]), in: nodes, following: dependencies)
            deferredRequired = Self.required(from: roots([.eager, .deferred]), in: nodes, following: dependencies)
        } else {
            eagerRequired = eagerSlots
            deferredRequired = deferredSlots
        }
        if nodes.contains(where: \.isSynchronous) {
            var firstAsync = [Int32](repeating: -1, count: nodes.count)
            for slot in order {
                if !nodes[slot].isSynchronous {
                    firstAsync[slot] = Int32(slot)
                } else if let dependency = nodes[slot].dependencies.first(where: { firstAsync[$0] >= 0 }) {
                    firstAsync[slot] = firstAsync[dependency]
                }
            }
            self.firstAsync = firstAsync
        } else {
            firstAsync = []
        }
        self.secrets = nodes.flatMap { $0.options.secretStrings }
        self.redactor = Redactor(secrets: secrets)
    }

    /// The part the app's coordinator builds: the app services.
    var appPart: ServiceGraph { appOnly ?? self }

    /// The number of services.
    public var count: Int { nodes.count }

    /// The services' names in declaration order.
    public var serviceNames: [String] { layout.names }

    /// The names `name` depends on directly, or `nil` when there is no such service.
    public func dependencies(of name: String) -> [String]? {
        layout.slots[name].map { nodes[$0].dependencies.map { nodes[$0].name } }
    }

    /// The names that depend on `name` directly, or `nil` when there is no such service.
    public func dependents(of name: String) -> [String]? {
        layout.slots[name].map { dependents[$0].map { nodes[$0].name } }
    }

    /// The id of the provider of `name`, or `nil` when there is no such service.
    public func providerID(of name: String) -> String? {
        layout.slots[name].map { nodes[$0].provider.id }
    }

    /// How long the value of `name` lives (the app or a scope), or `nil` when there is no such service.
    public func lifetime(of name: String) -> ServiceSpec.Lifetime? {
        layout.slots[name].map { nodes[$0].lifetime }
    }

    /// Whether the service called `name` and everything it depends on are synchronous (it can be
    /// read with ``ServiceContainer/resolveNow(_:as:isolation:)``), or `nil` when there is no such service.
    public func isSynchronous(_ name: String) -> Bool? {
        layout.slots[name].map { asynchronousNode(inClosureOf: $0) == nil }
    }

    /// The input services (``ServiceSpec/input(_:start:location:)``) the app supplies, in declaration order.
    public var inputNames: [String] { nodes.lazy.filter(\.isInput).map(\.name) }

    /// Whether the service called `name` is optional, or `nil` when there is no such service.
    public func isOptional(_ name: String) -> Bool? {
        layout.slots[name].map { nodes[$0].isOptional }
    }

    /// When the service called `name` is built, or `nil` when there is no such service.
    public func startPolicy(of name: String) -> StartPolicy? {
        layout.slots[name].map { nodes[$0].start }
    }
}

extension ServiceGraph {
    /// The services a reader (an entry point) needs, checked when the graph is validated.
    public struct Requirement: Sendable {
        /// Who needs the services, e.g. `entry point 'push'`.
        public var reader: String
        /// The services, with the types the reader expects.
        public var keys: [AnyServiceKey]
        /// The scope the reader runs in (it may then read that scope's services), or `nil`.
        public var scope: String?
        /// Where the reader was named, for error messages.
        public var location: ConfigLocation?

        /// Creates a requirement.
        public init(reader: String, keys: [AnyServiceKey], scope: String? = nil, location: ConfigLocation? = nil) {
            self.reader = reader
            self.keys = keys
            self.scope = scope
            self.location = location
        }
    }
}
