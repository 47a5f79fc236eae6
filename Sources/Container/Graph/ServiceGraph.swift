/// A validated dependency graph of services, ready to be built by a ``ServiceContainer``.
///
/// Creating a graph validates it completely before anything runs (DESIGN §3.1); see
/// `ServiceGraph+Validation.swift`. A graph is immutable and can back any number of containers.
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
        let options: ServiceOptions
        let timeout: Duration?
        let retry: RetryPolicy
        let defaultFailure: FailureKind?
        let location: ConfigLocation?

        init(
            name: String, provider: AnyServiceProvider, dependencies: [Int], dependencyNames: [String],
            options: ServiceOptions, timeout: Duration?, retry: RetryPolicy, defaultFailure: FailureKind?,
            location: ConfigLocation?
        ) {
            self.name = name
            self.provider = provider
            self.dependencies = dependencies
            self.dependencyNames = dependencyNames
            self.options = options
            self.timeout = timeout
            self.retry = retry
            self.defaultFailure = defaultFailure
            self.location = location
        }
    }

    let nodes: [Node]
    /// For each node, the nodes that depend on it.
    let dependents: [[Int]]
    /// Nodes such that every node comes after all its dependencies.
    let topologicalOrder: [Int]
    /// The position of each node in ``topologicalOrder``.
    let topologicalRank: [Int]
    let layout: ServiceLayout
    /// Secret option values of every node, redacted from traces and errors.
    let secrets: [String]

    init(nodes: [Node]) {
        self.nodes = nodes
        var dependents = [[Int]](repeating: [], count: nodes.count)
        for (index, node) in nodes.enumerated() {
            for dependency in node.dependencies { dependents[dependency].append(index) }
        }
        self.dependents = dependents
        let order = Self.topologicalOrder(of: nodes, dependents: dependents)
        precondition(order.count == nodes.count, "ServiceGraph.init requires an acyclic graph")
        self.topologicalOrder = order
        var rank = [Int](repeating: 0, count: nodes.count)
        for (position, node) in order.enumerated() { rank[node] = position }
        self.topologicalRank = rank
        self.layout = ServiceLayout(names: nodes.map(\.name))
        self.secrets = nodes.flatMap { $0.options.secretStrings }
    }

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

    /// The slots of `names` and of everything that depends on them, transitively.
    func closure(ofDependentsOf slots: some Sequence<Int>) -> Set<Int> {
        var result = Set<Int>()
        var stack = Array(slots)
        while let slot = stack.popLast() {
            guard result.insert(slot).inserted else { continue }
            stack.append(contentsOf: dependents[slot])
        }
        return result
    }

    /// Kahn's algorithm; returns fewer nodes than the graph has when there is a cycle.
    static func topologicalOrder(of nodes: [Node], dependents: [[Int]]) -> [Int] {
        var pending = [Int]()
        pending.reserveCapacity(nodes.count)
        for node in nodes { pending.append(node.dependencies.count) }
        var order = (0..<nodes.count).filter { pending[$0] == 0 }
        order.reserveCapacity(nodes.count)
        var next = 0
        while next < order.count {
            for dependent in dependents[order[next]] {
                pending[dependent] -= 1
                if pending[dependent] == 0 { order.append(dependent) }
            }
            next += 1
        }
        return order
    }

}

/// The services a reader (an entry point) needs, checked when the graph is validated.
public struct ServiceRequirement: Sendable {
    /// Who needs the services, e.g. `entry point 'push'`.
    public var reader: String
    /// The services, with the types the reader expects.
    public var keys: [AnyServiceKey]
    /// Where the reader was named, for error messages.
    public var location: ConfigLocation?

    /// Creates a requirement.
    public init(reader: String, keys: [AnyServiceKey], location: ConfigLocation? = nil) {
        self.reader = reader
        self.keys = keys
        self.location = location
    }

    /// The requirements of an entry point.
    public init(_ entryPoint: some EntryPoint, location: ConfigLocation? = nil) {
        self.init(reader: "entry point '\(entryPoint.id)'", keys: entryPoint.requirements, location: location)
    }
}
