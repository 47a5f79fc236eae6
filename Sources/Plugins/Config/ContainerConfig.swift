public import Container

/// A loaded and validated config file: the services, the container policy, the entry points
/// to run, and the validated graph, ready for a ``/Container/ServiceContainer``.
///
/// ```swift
/// let config = try ConfigLoader.load(path: "Configs/app.json")
/// let container = ServiceContainer(graph: config.graph, policy: config.policy)
/// for entryPoint in config.entryPoints { print(try await container.run(entryPoint)) }
/// ```
public struct ContainerConfig: Sendable {
    /// The config file, as given to the loader.
    public let file: String
    /// The overlays applied on top of ``file``, in order (empty when there are none).
    public let overlays: [String]
    /// The services, in declaration order, with their locations in the file (or in the
    /// overlay that added them), as the overlays changed them.
    public let specs: [ServiceSpec]
    /// The file's `policy` (failure mode, classification, attempt budget), with the keys the
    /// overlays give.
    public let policy: BuildPolicy
    /// The entry points the file lists under `entryPoints`, resolved from the registry, in file
    /// order; empty when the file lists none.
    public let entryPoints: [any EntryPoint]
    /// The validated graph of ``specs``; every entry point's requirements were checked against it.
    public let graph: ServiceGraph

    /// Hides the values of the options the config marks secret (`secretOptions`), and their
    /// fragments, in any text: the graph's redactor (``/Container/ServiceGraph/redactor``). Use it
    /// on what the app prints itself, such as an entry point's error quoting a secret path.
    public var redactor: Redactor { graph.redactor }

    /// Creates a config; ``ConfigLoader`` is the usual way.
    public init(
        file: String, specs: [ServiceSpec], policy: BuildPolicy, entryPoints: [any EntryPoint], graph: ServiceGraph,
        overlays: [String] = []
    ) {
        self.file = file
        self.overlays = overlays
        self.specs = specs
        self.policy = policy
        self.entryPoints = entryPoints
        self.graph = graph
    }
}
