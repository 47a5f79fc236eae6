extension ServiceContainer {
    /// Reads the service of `key` without suspending, building what its closure lacks on the
    /// calling thread (see <doc:LaunchTiers>): for what must exist before a synchronous callback
    /// returns, such as the notification-center delegate before `didFinishLaunching` ends.
    ///
    /// ```swift
    /// let delegate = try container.resolveNow(.notificationDelegate)
    /// ```
    ///
    /// Every service of the key's closure must be synchronous (a ``SynchronousServiceProvider``
    /// or ``ServiceSpec/synchronous(_:dependsOn:options:lifetime:group:start:sync:tearDown:fileID:line:make:)``,
    /// without timeout or retries); ``ServiceSpec/sync`` has validation check it. Each node is built
    /// once per generation, whoever asks first: the values are the generation's, reused by later
    /// requests and snapshots and torn down with the rest. When another worker is making a node
    /// the key needs, the calling thread blocks until that node is made; called from a task
    /// (async code), it throws instead of blocking the task's thread: await
    /// ``service(_:as:)`` there. Built and published already, it costs what ``resolve(_:)`` does.
    ///
    /// A synchronous main-actor service is made here only when the caller is isolated to the main
    /// actor (`isolation`); from anywhere else the build makes it on the main actor while this
    /// thread waits. A main-actor caller never waits for the main actor it holds: it throws.
    ///
    /// - Parameters:
    ///   - key: the service to read.
    ///   - label: the caller's name in the trace.
    ///   - isolation: the caller's actor (leave the default).
    /// - Throws: ``ContainerError`` `.notSynchronous` (naming the asynchronous service its closure
    ///   holds; nothing is built), what a failed build gives its callers, `.shutDown`; or
    ///   ``AppServices/LookupError`` for an unknown name or another type.
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
