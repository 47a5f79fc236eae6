import Synchronization

/// The fixed order of a graph's services: each name is bound to a slot at validation,
/// so a snapshot can store its values in an array indexed by slot.
@usableFromInline
final class ServiceLayout: Sendable {
    /// Distinguishes layouts in key slot caches: unique for the life of the process, so a key's
    /// cached (layout id, slot) pair can never be mistaken for a slot of another layout.
    /// ``uncached`` (0) once the ids ran out: such a layout never uses the caches.
    @usableFromInline let id: UInt32
    /// The service names, by slot.
    let names: [String]
    /// Slot of each name.
    @usableFromInline let slots: [String: Int]
    /// Each service's start policy, by slot; empty when every service is eager.
    let policies: [StartPolicy]
    /// Whether each service is optional, by slot; empty when none is.
    let optionals: [Bool]

    /// The id of layouts made after the 2³²−2 cacheable ids were used up: lookups in them
    /// always take the (correct, slower) lookup by name.
    static let uncached: UInt32 = 0
    /// The largest id ever given; `KeySlotCache`'s empty word decodes to `UInt32.max`, never given.
    static let lastID = UInt32.max - 1
    private static let issued = Atomic<UInt64>(0)

    convenience init(names: [String], policies: [StartPolicy] = [], optionals: [Bool] = []) {
        self.init(
            names: names, id: Self.id(forLayoutNumber: Self.issued.add(1, ordering: .relaxed).newValue),
            policies: policies, optionals: optionals)
    }

    init(names: [String], id: UInt32, policies: [StartPolicy] = [], optionals: [Bool] = []) {
        self.id = id
        self.names = names
        self.policies = policies
        self.optionals = optionals
        var slots: [String: Int] = [:]
        slots.reserveCapacity(names.count)
        for (slot, name) in names.enumerated() { slots[name] = slot }
        self.slots = slots
    }

    /// The start policy of the service in `slot`.
    func policy(at slot: Int) -> StartPolicy { slot < policies.count ? policies[slot] : .eager }

    /// Whether the service in `slot` is optional.
    func isOptional(at slot: Int) -> Bool { slot < optionals.count && optionals[slot] }

    /// The slot of `key`'s service, using and refreshing the key's cache.
    @inlinable
    func slot<Value>(of key: ServiceKey<Value>) -> Int? {
        if let slot = key.slotCache.slot(for: id) { return slot }
        return slowSlot(of: key.name, cache: key.slotCache)
    }

    @usableFromInline
    func slowSlot(of name: String, cache: KeySlotCache) -> Int? {
        guard let slot = slots[name] else { return nil }
        if id != Self.uncached { cache.remember(slot: slot, for: id) }
        return slot
    }

    /// The id of the `number`th layout of the process (1-based): its number while one is left,
    /// then ``uncached``. A 64-bit count never wraps, so no id is ever given twice.
    static func id(forLayoutNumber number: UInt64) -> UInt32 {
        number <= UInt64(lastID) ? UInt32(number) : uncached
    }
}
