extension ScopeInstance {
    /// Reads the service of `key` (scoped, or a service of the instance's chain it uses)
    /// without suspending, building what its closure lacks on the calling thread, the parent's
    /// part first (see ``ServiceContainer/resolveNow(_:as:isolation:)`` and <doc:LaunchTiers>).
    ///
    /// - Throws: what ``ServiceContainer/resolveNow(_:as:isolation:)`` throws, and ``ContainerError``
    ///   `.closed` once the instance is closed.
    @inlinable
    public func resolveNow<Value>(
        _ key: ServiceKey<Value>, as label: String? = nil, isolation: isolated (any Actor)? = #isolation
    ) throws -> Value {
        if let value = published.withCurrent({ $0.heldValue(key) }) ?? nil { return value }
        return try resolveNowSlowly(key, label: label, onMainActor: isolation === MainActor.shared)
    }

    /// ``resolveNow(_:as:isolation:)`` when the published snapshot does not hold the value.
    @usableFromInline @inline(never)
    func resolveNowSlowly<Value>(_ key: ServiceKey<Value>, label: String?, onMainActor: Bool) throws -> Value {
        // Nonisolated code can run on the main thread too: it may not block for the main actor either.
        try core.resolveNow(key.name, label: label, onMainActor: onMainActor || MainThread.isCurrent).resolve(key)
    }
}
