extension ServiceContainer {
    /// The open instances of the scope `scope` (not those closing), in the order they opened:
    /// e.g. every signed-in account (see <doc:Scopes>). For a nested scope, its instances under
    /// every open parent instance, parents first.
    ///
    /// ```swift
    /// let accounts = container.openInstances(of: "account").map(\.id)
    /// ```
    ///
    /// Each call makes new ``ScopeInstance`` handles; they are equal (`==`) to the handles
    /// ``openScope(_:id:parameters:)`` returned for the same instances.
    public func openInstances(of scope: String) -> [ScopeInstance] {
        core.openInstances(of: scope).map(ScopeInstance.init(core:))
    }

    /// The open instances of `scope` now, then after each instance of it opened or closed (a
    /// slow consumer gets the newest list); it ends at the shutdown (see <doc:Scopes>).
    ///
    /// ```swift
    /// for await accounts in container.instanceUpdates(of: "account") {
    ///     print(accounts.map(\.id))
    /// }
    /// ```
    public func instanceUpdates(of scope: String) -> ScopeInstance.Updates {
        ScopeInstance.Updates(changes: core.feeds.instances) { [core] in
            core.openInstances(of: scope).map(ScopeInstance.init(core:))
        }
    }
}

extension ScopeInstance {
    /// The open instances of one scope as they change: the list when the iteration began, then a
    /// new list each time an instance of the scope opened or closed (see
    /// ``ServiceContainer/instanceUpdates(of:)``).
    public struct Updates: AsyncSequence, Sendable {
        public typealias Element = [ScopeInstance]
        let changes: LatestFeed<Int>
        let list: @Sendable () -> [ScopeInstance]

        /// A consumer of the lists.
        public func makeAsyncIterator() -> Iterator {
            Iterator(changes: FeedSubscription(changes, startingWithNewest: false), list: list)
        }

        /// One consumer: ``next()`` is the next list that differs from the last, `nil` once the
        /// container shut down or the task is cancelled.
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            let changes: FeedSubscription<Int>
            let list: @Sendable () -> [ScopeInstance]
            var last: [ScopeInstance]?

            /// The open instances now (the first time), then after the next change to them.
            public mutating func next() async -> [ScopeInstance]? {
                guard last != nil else {
                    let now = list()
                    last = now
                    return now
                }
                while await changes.next() != nil {
                    let now = list()
                    // An instance of another scope opened or closed: nothing to tell.
                    guard now != last else { continue }
                    last = now
                    return now
                }
                return nil
            }
        }
    }
}

extension ScopeInstance: Hashable {
    /// Whether two handles are of the same instance.
    public static func == (lhs: ScopeInstance, rhs: ScopeInstance) -> Bool { lhs.core === rhs.core }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(core)) }
}
