/// Declares, on an entry point, a service it needs (see <doc:TypedDependencies>): the runtime derives the entry
/// point's ``EntryPoint/requirements`` from its `@Needs` properties (so the list is written
/// once) and fills them while ``EntryPoint/run(_:)`` runs.
///
/// ```swift
/// struct PushEntryPoint: EntryPoint {
///     let id = "push"
///     @Needs(.session) var session: Session
///     func run(_ services: ScopedServices) async throws -> String {
///         session.userID ?? "signed out"
///     }
/// }
/// ```
///
/// An optional service (``ServiceSpec/isOptional``) is declared as an optional property, which
/// is `nil` when the snapshot does not hold it: `@Needs(.telemetry) var telemetry: Telemetry?`.
///
/// The properties are readable inside `run(_:)` and in the tasks it awaits (not in detached
/// tasks). Reading one elsewhere stops the program with a message that says so; `$session.get()`
/// is the throwing form for code that may run outside.
@propertyWrapper
public struct Needs<Value: Sendable>: Sendable {
    /// The service read (for an optional property, its name with the property's type).
    public let key: ServiceKey<Value>
    /// What the entry point declares it reads: `key`, or for an optional property the key of
    /// the service's own type.
    let erasedKey: AnyServiceKey
    /// Reads the value from a running entry point's view.
    private let read: @Sendable (ScopedServices) throws(AppServices.LookupError) -> Value

    /// Declares that the entry point reads the service of `key`.
    public init(_ key: ServiceKey<Value>) {
        self.key = key
        erasedKey = key.erased
        read = { services throws(AppServices.LookupError) in try services.resolve(key) }
    }

    /// Declares that the entry point reads the optional service of `key`: the property is `nil`
    /// when the snapshot does not hold it.
    public init<Wrapped: Sendable>(_ key: ServiceKey<Wrapped>) where Value == Wrapped? {
        self.key = ServiceKey<Value>(key.name)
        erasedKey = key.erased
        read = { services throws(AppServices.LookupError) in try services.optional(key) }
    }

    /// The service's value in the running entry point's snapshot.
    public var wrappedValue: Value {
        do {
            return try get()
        } catch {
            // Reading a property outside run(_:) is a programming error, not an input: say how
            // to fix it (the throwing `$name.get()` exists for code that cannot be sure).
            preconditionFailure("@Needs(\(key.name)): \(error)")
        }
    }

    /// The wrapper itself: `$session.get()` reads without stopping the program.
    public var projectedValue: Needs<Value> { self }

    /// The service's value in the running entry point's snapshot.
    /// - Throws: ``AppServices/LookupError`` `.undeclared` outside an entry point's `run(_:)`, or as
    ///   ``ScopedServices/resolve(_:)``.
    public func get() throws(AppServices.LookupError) -> Value {
        guard let services = RunningEntryPoint.services else {
            throw AppServices.LookupError(
                code: .undeclared, service: key.name,
                message: "@Needs property for '\(key.name)' was read outside an entry point's run(_:) (or in a "
                    + "detached task): it is filled only while the container runs the entry point; read it inside "
                    + "run(_:), or pass the value along")
        }
        return try read(services)
    }
}

/// The view of the entry point running in the current task, read by ``Needs``.
enum RunningEntryPoint {
    @TaskLocal static var services: ScopedServices?

    /// Runs `entryPoint` with `services`, filling its `@Needs` properties.
    static func run<Entry: EntryPoint>(_ entryPoint: Entry, with services: ScopedServices) async throws -> Entry.Output
    {
        try await $services.withValue(services) { try await entryPoint.run(services) }
    }
}

/// A `@Needs` property, seen through reflection.
protocol NeedsDeclaration {
    var erasedKey: AnyServiceKey { get }
}

extension Needs: NeedsDeclaration {}

extension EntryPoint {
    /// The services the entry point's `@Needs` properties declare, in declaration order.
    /// An entry point that lists its requirements itself overrides this.
    public var requirements: [AnyServiceKey] {
        Mirror(reflecting: self).children.compactMap { ($0.value as? any NeedsDeclaration)?.erasedKey }
    }
}
