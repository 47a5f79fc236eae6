/// An entry-point plugin: code that runs when the app is entered some way (launch, scene,
/// deep link, push) and needs some services.
///
/// An entry point declares what it needs and is run with a view holding exactly that
/// (``ScopedServices``); it never builds or mutates services and never assumes anything is
/// ready: ``ServiceContainer/run(_:)`` asks the container (joining a build in progress).
///
/// ```swift
/// struct PushEntryPoint: EntryPoint {
///     let id = "push"
///     var requirements: [AnyServiceKey] { [ServiceKey<Session>.session.erased] }
///     func run(_ services: ScopedServices) async throws -> String {
///         try services[.session].userID ?? "signed out"
///     }
/// }
/// ```
public protocol EntryPoint: Sendable {
    /// What ``run(_:)`` returns.
    associatedtype Output: Sendable = Void

    /// The entry point's id (a config's `entryPoints` list names it).
    var id: String { get }

    /// The services ``run(_:)`` reads, with the types it reads them as.
    var requirements: [AnyServiceKey] { get }

    /// The scope the entry point runs in (see <doc:Scopes>), or `nil` (the default) to run on the app
    /// snapshot. A scoped entry point is run inside a scope instance
    /// (``ServiceContainer/run(_:in:)``) and may require that scope's services and app services.
    var scope: String? { get }

    /// Does the entry point's work with the services it declared.
    func run(_ services: ScopedServices) async throws -> Output
}

extension EntryPoint {
    /// Runs on the app snapshot.
    public var scope: String? { nil }
}

/// A view of a snapshot that exposes only the services an entry point declared.
///
/// Reading anything else throws ``AppServices/LookupError`` with code `.undeclared`: a missing
/// declaration is a bug to fix, never a silent `nil`.
public struct ScopedServices: Sendable {
    /// The full snapshot behind the view (its generation and report are public information).
    private let snapshot: AppServices
    /// The reader's id, for error messages.
    public let reader: String
    /// The declared requirements.
    public let requirements: [AnyServiceKey]
    private let allowed: Set<String>
    /// For an entry point run in a scope instance: the snapshots up its chain, nearest first
    /// (its parent instances', then the app's), that the services the instance's snapshot does
    /// not hold are read from (ones whose values the instance was built on, so they agree).
    private let above: [AppServices]

    /// Creates a view of `snapshot` for `reader` limited to `requirements`.
    public init(_ snapshot: AppServices, reader: String, requirements: [AnyServiceKey]) {
        self.init(snapshot, reader: reader, requirements: requirements, above: [])
    }

    init(_ snapshot: AppServices, reader: String, requirements: [AnyServiceKey], above: [AppServices]) {
        self.snapshot = snapshot
        self.reader = reader
        self.requirements = requirements
        self.allowed = Set(requirements.map(\.name))
        self.above = above
    }

    /// The snapshot that answers for `name`: the instance's when it holds it, else the nearest
    /// one up the chain that holds it, else the nearest whose graph has it (an absent optional
    /// service reads `nil` there), else the instance's (whose error names the service).
    private func holder(of name: String) -> AppServices {
        if above.isEmpty || snapshot.contains(name) { return snapshot }
        if let holder = above.first(where: { $0.contains(name) }) { return holder }
        if snapshot.layout.slots[name] != nil { return snapshot }
        return above.first { $0.layout.slots[name] != nil } ?? snapshot
    }

    /// The generation of the snapshot behind the view.
    public var generation: Int { snapshot.generation }

    /// Reads a declared service.
    /// - Throws: ``AppServices/LookupError`` when `key` was not declared, or as ``AppServices/resolve(_:)``.
    public func resolve<Value>(_ key: ServiceKey<Value>) throws(AppServices.LookupError) -> Value {
        guard allowed.contains(key.name) else {
            throw .undeclared(
                key.name, reader: "entry point '\(reader)'", declared: requirements.map(\.name), type: Value.self)
        }
        return try holder(of: key.name).resolve(key)
    }

    /// Reads a declared optional service: `nil` when the snapshot does not hold it (see
    /// ``AppServices/optional(_:)``).
    /// - Throws: ``AppServices/LookupError`` when `key` was not declared, or as ``AppServices/optional(_:)``.
    public func optional<Value>(_ key: ServiceKey<Value>) throws(AppServices.LookupError) -> Value? {
        guard allowed.contains(key.name) else {
            throw .undeclared(
                key.name, reader: "entry point '\(reader)'", declared: requirements.map(\.name), type: Value.self)
        }
        return try holder(of: key.name).optional(key)
    }

    /// Reads a declared service; the same as ``resolve(_:)``.
    public subscript<Value>(key: ServiceKey<Value>) -> Value {
        get throws(AppServices.LookupError) { try resolve(key) }
    }
}
