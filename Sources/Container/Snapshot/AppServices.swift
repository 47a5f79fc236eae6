/// The immutable snapshot of one generation's services.
///
/// A snapshot answers a request (see <doc:DemandDrivenStartUp>): it holds every service of the
/// request's dependency closure (for ``ServiceContainer/start(as:)``, every eager service, which
/// is every service unless some are declared deferred or lazy), never part of one. A later
/// request of the same generation publishes a newer snapshot that holds more; this one never
/// changes. Reading a service is synchronous and typed:
///
/// ```swift
/// let services = try await container.start()
/// let db = try services[.database]
/// ```
///
/// Snapshots are reference types: every caller of the same build receives the same
/// object (`===`). Holding an old snapshot after ``ServiceContainer/reset(invalidating:)``
/// is allowed; it stays immutable, though values that have a teardown may have been torn down.
public final class AppServices: Sendable {
    /// The generation this snapshot belongs to (of the app, or of its scope instance).
    public let generation: Int
    /// How the build that produced this snapshot went, node by node: for a snapshot published
    /// while its build goes on (a request that joined it answered first), the nodes settled by
    /// then.
    public let report: BuildReport
    /// For a scope instance's snapshot: the instance (`"push#notification-42"`); `nil` for the app's.
    public let scope: String?
    /// For a scope instance's snapshot: the app generation it was built against (its app
    /// services are that generation's values).
    public let appGeneration: Int?
    @usableFromInline let layout: ServiceLayout
    /// Every service's value, by slot of `layout` (chunks shared with the generations before).
    @usableFromInline let values: SlotValues
    /// Whether it holds every service `start()` asks for (what `start()` may return at once).
    @usableFromInline let holdsEager: Bool
    /// Why each optional service the snapshot lacks was not built, by name (only those that
    /// failed or whose dependency did).
    let absences: [String: String]
    /// The machine's count of absence changes when this snapshot was made.
    let absenceVersion: Int

    init(
        generation: Int, report: BuildReport, layout: ServiceLayout, values: SlotValues,
        scope: String? = nil, appGeneration: Int? = nil, holdsEager: Bool = true, absences: [String: String] = [:],
        absenceVersion: Int = 0
    ) {
        precondition(values.count <= layout.names.count, "a snapshot holds at most every service of its layout")
        self.generation = generation
        self.report = report
        self.layout = layout
        self.values = values
        self.scope = scope
        self.appGeneration = appGeneration
        self.holdsEager = holdsEager
        self.absences = absences
        self.absenceVersion = absenceVersion
    }

    /// Whether the snapshot holds a value of every service of its graph.
    var isComplete: Bool { values.count == layout.names.count }

    /// The names of the services the snapshot holds, in graph order.
    public var serviceNames: [String] {
        isComplete ? layout.names : layout.names.indices.filter(values.hasValue).map { layout.names[$0] }
    }

    /// Whether the snapshot holds the service called `name`.
    public func contains(_ name: String) -> Bool { layout.slots[name].map(values.hasValue) ?? false }

    /// Reads the service of `key`.
    ///
    /// The fast path is inlined into the caller: the key's cached slot for this snapshot's
    /// layout, one array read and one type check, no retain of the box. A cache miss and
    /// every error take the out-of-line `resolveSlowly(_:)`.
    ///
    /// - Throws: ``AppServices/LookupError`` when no service has that name or its value has another type.
    @inlinable @inline(__always)
    public func resolve<Value>(_ key: ServiceKey<Value>) throws(LookupError) -> Value {
        if let slot = key.slotCache.slot(for: layout.id), let box = values.value(at: slot) {
            if box.typeID == ObjectIdentifier(Value.self) {
                return unsafeDowncast(box, to: ServiceBox<Value>.self).value
            }
        }
        return try resolveSlowly(key)
    }

    /// The value of `key` when the key's cached slot finds it here, else `nil` (no lookup by
    /// name, no error): the first step of a read that can do more when it misses.
    @inlinable @inline(__always)
    func heldValue<Value>(_ key: ServiceKey<Value>) -> Value? {
        guard let slot = key.slotCache.slot(for: layout.id), let box = values.value(at: slot),
            box.typeID == ObjectIdentifier(Value.self)
        else { return nil }
        return unsafeDowncast(box, to: ServiceBox<Value>.self).value
    }

    /// The lookup by name, which refreshes the key's slot cache, and the errors.
    @usableFromInline @inline(never)
    func resolveSlowly<Value>(_ key: ServiceKey<Value>) throws(LookupError) -> Value {
        guard let slot = layout.slot(of: key) else { throw missing(key.name) }
        guard let box = values.value(at: slot) else { throw notHeld(key.name, slot: slot, type: Value.self) }
        guard box.typeID == ObjectIdentifier(Value.self) else { throw mismatch(key.name, expected: Value.self) }
        return unsafeDowncast(box, to: ServiceBox<Value>.self).value
    }

    /// Reads the service of `key`; the same as ``resolve(_:)``.
    @inlinable
    public subscript<Value>(key: ServiceKey<Value>) -> Value {
        @inline(__always)
        get throws(LookupError) { try resolve(key) }
    }

    /// Reads an optional service (``ServiceSpec/isOptional``): `nil` when the snapshot does not
    /// hold it; ``absence(of:)`` says why (see <doc:DemandDrivenStartUp>).
    /// - Throws: ``AppServices/LookupError`` when no service has that name, its value has another
    ///   type, or the service is not optional and the snapshot does not hold it.
    public func optional<Value>(_ key: ServiceKey<Value>) throws(LookupError) -> Value? {
        guard let slot = layout.slot(of: key) else { throw missing(key.name) }
        guard let box = values.value(at: slot) else {
            if layout.isOptional(at: slot) { return nil }
            throw notHeld(key.name, slot: slot, type: Value.self)
        }
        guard box.typeID == ObjectIdentifier(Value.self) else { throw mismatch(key.name, expected: Value.self) }
        return unsafeDowncast(box, to: ServiceBox<Value>.self).value
    }

    /// The value of `key` with the number its build gave it (unique per value made, so two
    /// snapshots hold the same value exactly when the numbers are equal); `nil` when the
    /// snapshot does not hold it or it has another type.
    func numberedValue<Value>(of key: ServiceKey<Value>) -> (value: Value, number: UInt64)? {
        guard let slot = layout.slot(of: key), let box = values.value(at: slot),
            box.typeID == ObjectIdentifier(Value.self)
        else { return nil }
        return (unsafeDowncast(box, to: ServiceBox<Value>.self).value, box.sequence)
    }

    /// The number of the value of the service called `name` (see ``numberedValue(of:)``);
    /// `nil` when the snapshot does not hold it.
    func valueNumber(named name: String) -> UInt64? {
        layout.slots[name].flatMap { values.value(at: $0)?.sequence }
    }

    /// The names of the services whose value differs from `previous`'s (held by one of them
    /// only, or by both with different values); every held service when `previous` is `nil`.
    func serviceNames(changedFrom previous: AppServices?) -> [String] {
        guard let previous else { return serviceNames }
        var changed: [String] = []
        for (slot, name) in layout.names.enumerated() {
            let now = values.value(at: slot)?.sequence
            let before = previous.layout.slots[name].flatMap { previous.values.value(at: $0)?.sequence }
            if now != before { changed.append(name) }
        }
        for name in previous.serviceNames where layout.slots[name] == nil { changed.append(name) }
        return changed
    }

    /// Why the optional service called `name` is not in the snapshot: its failure, or the
    /// failure of a service it needs; `nil` when it is held, or was not asked for.
    public func absence(of name: String) -> String? { absences[name] }

    /// The value of the service called `name`, untyped; for diagnostics and generic tools.
    public func anyValue(named name: String) throws(LookupError) -> any Sendable {
        guard let slot = layout.slots[name] else { throw missing(name) }
        guard let box = values.value(at: slot) else { throw notHeld(name, slot: slot) }
        return box.anyValue
    }

    /// Whether this scope instance's snapshot holds the same value as `app` for every app
    /// service it holds (it was built on `app`'s generation, or on one whose values of them
    /// carried over to it).
    func isBuilt(on app: AppServices, comparingGenerations: Bool = true) -> Bool {
        if comparingGenerations && appGeneration == app.generation { return true }
        for (slot, name) in layout.names.enumerated() {
            guard let appSlot = app.layout.slots[name] else { continue }
            if values.value(at: slot) !== app.values.value(at: appSlot) { return false }
        }
        return true
    }

    @usableFromInline
    func missing(_ name: String) -> LookupError {
        .notFound(name, known: layout.names)
    }

    /// A service of the graph this snapshot does not hold (its request's closure lacks it).
    func notHeld(_ name: String, slot: Int, type: Any.Type? = nil) -> LookupError {
        if let reason = absences[name] { return .absent(name, reader: "a snapshot lookup", reason: reason) }
        return .notBuilt(name, policy: layout.policy(at: slot), generation: generation, type: type)
    }

    @usableFromInline
    func mismatch(_ name: String, expected: Any.Type) -> LookupError {
        let actual = layout.slots[name].flatMap { values.value(at: $0)?.valueType } ?? Never.self
        return .typeMismatch(name, expected: expected, actual: actual)
    }
}

extension AppServices: CustomStringConvertible {
    public var description: String {
        let scope = self.scope.map { "scope: \($0), app generation: \(appGeneration ?? 0), " } ?? ""
        return "AppServices(\(scope)generation: \(generation), services: [\(layout.names.joined(separator: ", "))])"
    }
}
