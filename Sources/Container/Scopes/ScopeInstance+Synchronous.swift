extension ScopeInstance {
    /// Reads the service of `key` (scoped, or a service of the instance's chain it uses)
    /// without suspending, building what its closure lacks on the calling thread, the parent's
    /// part first (see ``ServiceContainer/resolveNow(_:as:)`` and <doc:LaunchTiers>).
    ///
    /// - Throws: what ``ServiceContainer/resolveNow(_:as:)`` throws, and ``ContainerError``
    ///   `.closed` once the instance is closed.
    @inlinable
    public func resolveNow<Value>(_ key: ServiceKey<Value>, as label: String? = nil) throws -> Value {
        if let value = published.withCurrent({ $0.heldValue(key) }) ?? nil { return value }
        return try resolveNowSlowly(key, label: label)
    }

    @usableFromInline @inline(never)
    func resolveNowSlowly<Value>(_ key: ServiceKey<Value>, label: String?) throws -> Value {
        try core.resolveNow(key.name, label: label).resolve(key)
    }
}
