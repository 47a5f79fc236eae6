public import Synchronization

/// A typed name for one service of the graph.
///
/// A key pairs a service's name (as written in the config file or in code) with
/// the type of its value, so that reading a service is checked and never needs a cast:
///
/// ```swift
/// extension ServiceKey where Value == Database {
///     static let database = ServiceKey("database")
/// }
/// let db = try services[.database]
/// ```
///
/// Declare keys once, as `static let`s: a key remembers the slot its service
/// occupies in a snapshot, so repeated lookups with the same key are an array
/// read rather than a dictionary lookup.
public struct ServiceKey<Value: Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The service's name in the graph.
    public let name: String

    /// Where this key last found its service; see ``ServiceKey``.
    @usableFromInline let slotCache: KeySlotCache

    /// Creates a key for the service called `name`, whose value is a `Value`.
    public init(_ name: String) {
        self.name = name
        self.slotCache = KeySlotCache()
    }

    /// The key without its value type, for declarations such as an entry point's requirements.
    public var erased: AnyServiceKey { AnyServiceKey(name: name, valueType: Value.self) }

    public var description: String { "\(name): \(Value.self)" }

    public static func == (lhs: ServiceKey, rhs: ServiceKey) -> Bool { lhs.name == rhs.name }

    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A service key with its value type erased: a name plus the type it expects.
public struct AnyServiceKey: Sendable, Hashable, CustomStringConvertible {
    /// The service's name in the graph.
    public let name: String
    /// The type the reader expects the service's value to have.
    public let valueType: any Sendable.Type

    /// Creates an erased key from a typed one.
    public init<Value>(_ key: ServiceKey<Value>) { self = key.erased }

    init(name: String, valueType: any Sendable.Type) {
        self.name = name
        self.valueType = valueType
    }

    public var description: String { "\(name): \(valueType)" }

    public static func == (lhs: AnyServiceKey, rhs: AnyServiceKey) -> Bool {
        lhs.name == rhs.name && ObjectIdentifier(lhs.valueType) == ObjectIdentifier(rhs.valueType)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(ObjectIdentifier(valueType))
    }
}

/// Remembers, per key instance, the slot of its service in the last layout it was used with.
///
/// One atomic word: the layout's id in the high 32 bits, the slot in the low 32 bits. Layout
/// ids are never reused (see ``ServiceLayout/id``), so a word that names a layout's id was
/// recorded for that very layout. The empty word is all ones: its id, `UInt32.max`, is never
/// given to a layout, and ``ServiceLayout/uncached`` (0) is never recorded. Relaxed ordering is
/// enough: the word is self-contained and a stale or missing entry only sends the lookup down
/// the slow path.
@usableFromInline
final class KeySlotCache: Sendable {
    @usableFromInline let word = Atomic<UInt64>(UInt64.max)

    @usableFromInline init() {}

    /// The cached slot if it was recorded for the layout `layoutID`.
    @inlinable
    func slot(for layoutID: UInt32) -> Int? {
        let value = word.load(ordering: .relaxed)
        guard UInt32(truncatingIfNeeded: value >> 32) == layoutID else { return nil }
        return Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: value))
    }

    @usableFromInline
    func remember(slot: Int, for layoutID: UInt32) {
        word.store(UInt64(layoutID) << 32 | UInt64(UInt32(truncatingIfNeeded: slot)), ordering: .relaxed)
    }
}
