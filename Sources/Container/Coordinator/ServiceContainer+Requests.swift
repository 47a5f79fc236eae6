/// Requests by closure (see <doc:DemandDrivenStartUp>): each builds only what the dependency
/// closure of the services it names lacks in the current generation, and answers with a
/// snapshot holding that whole closure, or a failure.
extension ServiceContainer {
    /// Returns a snapshot holding `keys` and everything they depend on, building what the
    /// current generation lacks of that closure (whatever the services' start policies).
    ///
    /// Requests share one build at a time: a request that arrives while a build runs joins the
    /// nodes it shares with it and adds the ones it lacks; every node runs at most once per
    /// attempt however many requests need it. A node's failure fails exactly the requests whose
    /// closure holds it: services outside `keys`' closure never fail this call.
    ///
    /// ```swift
    /// let services = try await container.start(needs: [ServiceKey<Session>.session.erased])
    /// ```
    ///
    /// - Parameters:
    ///   - keys: the services needed, with the types they are read as.
    ///   - label: the caller's name in the trace.
    /// - Throws: ``GraphError`` naming a key the graph lacks (or declares with another type),
    ///   before anything is built; otherwise what ``start(as:)`` throws.
    public func start(needs keys: [AnyServiceKey], as label: String? = nil) async throws -> AppServices {
        let key = try requestKey(for: keys, reader: label.map { "start(needs:) of '\($0)'" } ?? "start(needs:)")
        if published.answersReadyInline, !published.isShutDown, let snapshot = published.load(), snapshot.holds(key) {
            return snapshot
        }
        return try await core.start(key, label: label)
    }

    /// Returns a snapshot holding these services and everything they depend on; the same as
    /// ``start(needs:as:)-([AnyServiceKey],_)`` with typed keys:
    ///
    /// ```swift
    /// let services = try await container.start(needs: .session, .database)
    /// ```
    public func start<each Value>(
        needs keys: repeat ServiceKey<each Value>, as label: String? = nil
    ) async throws -> AppServices {
        var erased: [AnyServiceKey] = []
        for key in repeat each keys { erased.append(key.erased) }
        return try await start(needs: erased, as: label)
    }

    /// Returns the value of `key`, building what its dependency closure lacks: the `async`
    /// counterpart of ``resolve(_:)``, for a lazy or deferred service (or any service before
    /// the first snapshot).
    ///
    /// ```swift
    /// let search = try await container.service(.searchIndex)   // built on first use
    /// ```
    ///
    /// - Throws: what ``start(needs:as:)-([AnyServiceKey],_)`` throws.
    public func service<Value>(_ key: ServiceKey<Value>, as label: String? = nil) async throws -> Value {
        // Held already: one lookup (a miss, or a wrong type, takes the request, which says why).
        if published.answersReadyInline, !published.isShutDown, let value = try? published.load()?.resolve(key) {
            return value
        }
        return try await start(needs: [key.erased], as: label).resolve(key)
    }

    /// Builds the deferred services (and what they need) at background priority, after the
    /// eager ones; returns the snapshot holding both. Call it once the first frame is up.
    ///
    /// A request that needs a deferred service sooner builds it at its own priority; this call
    /// then finds it built. Without deferred services it is ``start(as:)``.
    ///
    /// - Throws: what ``start(as:)`` throws (a failure of a deferred service included).
    @discardableResult
    public func startDeferred(as label: String? = nil) async throws -> AppServices {
        try await core.start(.deferred, label: label, priorityLimit: .background)
    }

    /// The request for `keys`, once they are checked against the graph (with the slots the
    /// check found: the request's critical section then looks up no name).
    func requestKey(for keys: [AnyServiceKey], reader: String) throws(GraphError) -> CoordinatorCore.Machine.Demands.Key
    {
        let graph = core.graph
        let slots = try graph.slots(checking: ServiceGraph.Requirement(reader: reader, keys: keys))
        return .names(keys.map(\.name), found: .init(layout: graph.layout.id, slots: slots))
    }
}
