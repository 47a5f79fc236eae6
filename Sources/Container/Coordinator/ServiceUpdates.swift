extension AppServices {
    /// The snapshots a container or a scope instance publishes, as they are published: each new
    /// generation and each growth of one (see <doc:ObservingTheServices>).
    ///
    /// ```swift
    /// for await services in container.snapshots {
    ///     render(try services[.session])
    /// }
    /// ```
    ///
    /// Each iteration is its own consumer. It starts with the snapshot published when it began,
    /// if there is one, then gets each later one exactly once, in the order they were published; a
    /// consumer slower than the snapshots gets the newest, never a backlog. A snapshot that a reset
    /// or reload retired before the consumer took it is dropped (its values may be torn down). The
    /// sequence ends at ``ServiceContainer/shutdown()`` (``ScopeInstance/close()`` for an instance),
    /// and when the consuming task is cancelled (that consumer's sequence only).
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = AppServices
        let feed: LatestFeed<SnapshotChange>

        /// A consumer of the snapshots.
        public func makeAsyncIterator() -> Iterator { Iterator(subscription: FeedSubscription(feed)) }

        /// One consumer: ``next()`` is the next snapshot, `nil` once the sequence ended.
        ///
        /// Copies of an iterator are the same consumer: `next()` calls that wait at the same time
        /// are answered in the order they were made, each snapshot going to one of them.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let subscription: FeedSubscription<SnapshotChange>

            /// The next snapshot published; `nil` once the container or instance shut down or the task is cancelled.
            public mutating func next() async -> AppServices? {
                // Only publications are offered to it (it does not take clears).
                while let change = await subscription.next() {
                    if case .publish(let snapshot) = change { return snapshot }
                }
                return nil
            }
        }
    }
}

extension AppServices {
    /// The successive values of one service: an element each time a published snapshot holds a
    /// value of the service other than the last one given (a new generation that rebuilt it, or the
    /// first snapshot that holds it); snapshots that keep the same value, or lack the service, give
    /// none (see <doc:ObservingTheServices>).
    ///
    /// ```swift
    /// for await session in container.values(of: .session) {
    ///     show(session.account)
    /// }
    /// ```
    ///
    /// It follows ``AppServices/Updates``: newest first for a slow consumer, ends with it.
    public struct ValueUpdates<Value: Sendable>: AsyncSequence, Sendable {
        public typealias Element = Value
        let snapshots: AppServices.Updates
        let key: ServiceKey<Value>

        /// A consumer of the values.
        public func makeAsyncIterator() -> Iterator { Iterator(snapshots: snapshots.makeAsyncIterator(), key: key) }

        /// One consumer: ``next()`` is the next new value, `nil` once the sequence ended.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            var snapshots: AppServices.Updates.Iterator
            let key: ServiceKey<Value>
            /// The number of the last value given: values are told apart by their build's numbering,
            /// so the iterator keeps no value alive.
            var last: UInt64?

            /// The next value of the service that differs from the last one; `nil` once the sequence ended.
            public mutating func next() async -> Value? {
                while let snapshot = await snapshots.next() {
                    guard let (value, number) = snapshot.numberedValue(of: key), number != last else { continue }
                    last = number
                    return value
                }
                return nil
            }
        }
    }
}

extension ContainerStatus {
    /// The container's or instance's ``ContainerStatus`` after each change of its state: the
    /// status when the iteration began, then the newest after each transition (a slow consumer
    /// gets the newest; two elements may read alike), and the last status at the shutdown or close,
    /// exactly once, after which the sequence ends (see <doc:ObservingTheServices>).
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = ContainerStatus
        let changes: LatestFeed<Int>
        let status: @Sendable () -> ContainerStatus

        /// A consumer of the statuses.
        public func makeAsyncIterator() -> Iterator {
            Iterator(changes: FeedSubscription(changes, startingWithNewest: false), status: status)
        }

        /// One consumer: ``next()`` is the newest status after a change, `nil` once the sequence ended.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let changes: FeedSubscription<Int>
            let status: @Sendable () -> ContainerStatus
            var started = false
            var ended = false

            /// The status now (the first time), then after the next change; `nil` after the last.
            public mutating func next() async -> ContainerStatus? {
                guard !ended else { return nil }
                if started, await changes.next() == nil {
                    // The feed ended at the shutdown or close (its status follows), or the task was
                    // cancelled.
                    ended = true
                    if Task.isCancelled { return nil }
                }
                started = true
                let now = status()
                // The shutdown's status is the last one, however it was reached (a consumer that
                // began after the shutdown, or read it before the feed ended).
                if now.state == .shutDown { ended = true }
                return now
            }
        }
    }
}

/// One consumer of a ``LatestFeed``, subscribed for as long as it lives.
final class FeedSubscription<Element: Sendable>: Sendable {
    private let feed: LatestFeed<Element>
    private let id: Int

    init(_ feed: LatestFeed<Element>, startingWithNewest: Bool = true, takingClears: Bool = false) {
        self.feed = feed
        id = feed.subscribe(startingWithNewest: startingWithNewest, takingClears: takingClears)
    }

    func next() async -> Element? { await feed.next(id) }

    deinit { feed.cancel(id) }
}
