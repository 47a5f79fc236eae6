extension ServiceContainer {
    /// Supplies the value of an input service (``ServiceSpec/input(_:start:location:)``; in a config,
    /// `"provider": "input"`): requests waiting for it go on (see <doc:DemandDrivenStartUp>).
    ///
    /// ```swift
    /// try await container.supply(.deviceToken, token)
    /// ```
    ///
    /// The first value completes the input's node. A later one replaces it: when the current
    /// generation built the input, that is an incremental reset of the input and its dependents
    /// (``reset(invalidating:)``), which the next request that needs them builds again with the
    /// new value; everything else carries over.
    ///
    /// - Returns: the report of that reset; `nil` when nothing was built from an earlier value.
    /// - Throws: ``ContainerError`` `.invalidInput` for a service that is not an input or a value
    ///   of another type (nothing changes), or `.shutDown`.
    @discardableResult
    public func supply<Value: Sendable>(
        _ key: ServiceKey<Value>, _ value: Value
    ) async throws(ContainerError) -> ResetReport? {
        if let refusal = core.refusal { throw refusal }
        let graph = core.graph.appPart
        guard let slot = graph.layout.slots[key.name], graph.nodes[slot].isInput,
            graph.nodes[slot].provider.valueTypeID == ObjectIdentifier(Value.self)
        else { throw .invalidInput(key.name, type: Value.self, graph: graph, generation: generation) }
        let tracer = core.tracer
        let attempt = tracer.isEnabled ? core.currentAttempt : BuildAttempt(generation: 0, attempt: 0)
        // Stamped while the value is stored: `input.supplied` comes before the input's node ends.
        let (supplied, stamped) = core.inputs.supply(key.name, value, type: ObjectIdentifier(Value.self)) {
            replaced in tracer.stamp([(.inputSupplied(node: key.name, replaced: replaced), attempt)])
        }
        tracer.deliver(stamped)
        // Values built from an earlier one go: the input and its dependents are built again. The
        // current generation's input node may also have read the earlier value and not settled
        // yet (`building`): a reset then too, or the new value would never reach the snapshot.
        guard supplied.replaced, let state = core.serviceState(named: key.name) else { return nil }
        let readNow = supplied.staleReadGeneration == core.generation
        guard state == .built || (readNow && (state == .building || state == .failed)) else { return nil }
        do {
            return try await reset(invalidating: [key.name])
        } catch  where error.code == .unknownService {
            return nil  // a reload removed the input meanwhile: nothing built from it is left
        }
    }
}
