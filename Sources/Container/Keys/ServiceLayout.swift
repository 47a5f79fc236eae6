import Synchronization

/// The fixed order of a graph's services: each name is bound to a slot at validation,
/// so a snapshot can store its values in an array indexed by slot.
@usableFromInline
final class ServiceLayout: Sendable {
    /// Distinguishes layouts in key slot caches; never 0 (0 means "nothing cached").
    @usableFromInline let id: UInt32
    /// The service names, by slot.
    let names: [String]
    /// Slot of each name.
    @usableFromInline let slots: [String: Int]

    private static let nextID = Atomic<UInt32>(1)

    init(names: [String]) {
        var id = Self.nextID.add(1, ordering: .relaxed).oldValue
        if id == 0 { id = Self.nextID.add(1, ordering: .relaxed).oldValue }  // skipped on wrap-around
        self.id = id
        self.names = names
        var slots: [String: Int] = [:]
        slots.reserveCapacity(names.count)
        for (slot, name) in names.enumerated() { slots[name] = slot }
        self.slots = slots
    }

    /// The slot of `key`'s service, using and refreshing the key's cache.
    @inlinable
    func slot<Value>(of key: ServiceKey<Value>) -> Int? {
        if let slot = key.slotCache.slot(for: id) { return slot }
        return slowSlot(of: key.name, cache: key.slotCache)
    }

    @usableFromInline
    func slowSlot(of name: String, cache: KeySlotCache) -> Int? {
        guard let slot = slots[name] else { return nil }
        cache.remember(slot: slot, for: id)
        return slot
    }
}
