extension ServiceGraph {
    /// What a new version of a graph changes (see <doc:Reload>): the services it adds, removes and
    /// changes, and those it must rebuild (the changed and added ones and everything depending on
    /// them); every other service's value carries over.
    ///
    /// A service is changed when its declaration's fingerprint differs; equal fingerprints are
    /// trusted (a false "unchanged" has a probability of about 2^-128; see
    /// ``ServiceGraph/changes(from:)``).
    public struct Changes: Sendable, Hashable {
        /// Services the new graph declares and the old one did not.
        public let added: [String]
        /// Services the old graph declared and the new one does not.
        public let removed: [String]
        /// Services in both whose provider, options, dependencies (or the groups read from them),
        /// lifetime, optionality, timeout, retry or failure classification differ.
        public let changed: [String]
        /// Services of the new graph that are built again: added, changed, and their dependents.
        public let rebuilt: [String]
        /// Services of the new graph whose values carry over unchanged.
        public var carriedOver: [String] { carried.names }
        /// See ``carriedOver``: slots of the new graph, made into names when read (nearly every
        /// service of a large graph, for a reload that changed one).
        let carried: SlotNames
        /// See ``rebuilt``: their slots in the new graph, ascending.
        let rebuiltSlots: [Int]
        /// Whether both graphs have the same names in the same slots (every value that carries
        /// over keeps its slot).
        let inPlace: Bool
        /// Scopes whose services (or the app services they use) changed: their open instances are rebuilt.
        public let changedScopes: [String]
        /// Scopes the new graph no longer declares: their open instances are closed.
        public let removedScopes: [String]

        /// Whether the new graph is the same as the old one.
        public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && changedScopes.isEmpty }
    }
}

extension ServiceGraph {
    /// What replacing `old` with this graph changes.
    ///
    /// Two services of the same name are the same declaration when their fingerprints are equal
    /// (`DeclarationFingerprint`: name, provider id and value type, options, dependencies' names,
    /// groups, lifetime, optionality, timeout, retry and failure classification). Equal fingerprints are
    /// trusted, not verified field by field: two different declarations have equal ones with a
    /// probability of about 2^-128 (a 128-bit SipHash keyed with random bits drawn once per
    /// process, so no config can be written to collide with another), while verifying would
    /// cost the comparison of every field of every unchanged service, which is what a
    /// reload of one leaf of a large graph must not pay. Strings are compared by their UTF-8
    /// bytes: an option written in another Unicode normalization counts as changed. A graph
    /// compared with itself changes nothing, without looking at its services.
    ///
    /// Providers are compared by id and value type: a service declared in code whose closure
    /// changed under the same id is not seen as changed (give it other options or another id).
    public func changes(from old: ServiceGraph) -> ServiceGraph.Changes {
        // A reload usually keeps the services in place: each node is first compared with the
        // old node in the same slot, and the names are hashed only for those that moved.
        var added: [String] = []
        var changedSlots: [Int] = []
        var matched = 0
        let names = serviceNames
        let oldNames = old.serviceNames
        var inPlace = self === old
        // Read once each: the graph makes them on the first comparison and keeps them.
        let fingerprints = inPlace ? [] : self.fingerprints
        let oldFingerprints = inPlace ? [] : old.fingerprints
        if !inPlace && names.count == oldNames.count {
            // One pass over two plain arrays of fingerprints, no node visited (retained), no name
            // hashed. A fingerprint covers the name: where two are equal, so are the names (as
            // trusted as the declarations); only the slots that differ compare their names. When
            // those are the same too, every service is in place and those slots changed.
            fingerprints.withUnsafeBufferPointer { new in
                oldFingerprints.withUnsafeBufferPointer { old in
                    for slot in new.indices where new[slot] != old[slot] { changedSlots.append(slot) }
                }
            }
            inPlace = changedSlots.allSatisfy { names[$0] == oldNames[$0] }
            if !inPlace { changedSlots = [] }
        }
        if inPlace {
            matched = names.count
        } else {
            for slot in names.indices {
                guard let oldSlot = old.slot(of: names[slot], near: slot, names: oldNames) else {
                    added.append(names[slot])
                    continue
                }
                matched += 1
                if fingerprints[slot] != oldFingerprints[oldSlot] { changedSlots.append(slot) }
            }
        }
        // Names are unique: when every old node was matched, none was removed.
        var removed: [String] = []
        if matched < old.nodes.count {
            for (slot, name) in oldNames.enumerated() where self.slot(of: name, near: slot, names: names) == nil {
                removed.append(name)
            }
        }
        let newSlots = layout.slots
        let addedSlots = added.compactMap { newSlots[$0] }
        let rebuiltSlots = closure(ofDependentsOf: changedSlots + addedSlots).sorted()

        var changedScopes: [String] = []
        if !scopeNames.isEmpty {
            var isRebuilt = [Bool](repeating: false, count: nodes.count)
            for slot in rebuiltSlots { isRebuilt[slot] = true }
            var changed = Set<String>()
            for scope in scopeNames {
                guard let oldPart = old.scopeParts[scope], let newPart = scopeParts[scope] else { continue }
                let touched = newPart.nodes.contains { newSlots[$0.name].map { isRebuilt[$0] } ?? false }
                if touched || oldPart.serviceNames != newPart.serviceNames
                    || oldPart.fingerprints != newPart.fingerprints
                    || oldPart.scopeNames != newPart.scopeNames
                {
                    // A nested scope's instances are opened from its parent's, which are rebuilt
                    // on their new parts to reach them.
                    for link in scopeChain(of: scope) where scopeParts[link] != nil { changed.insert(link) }
                }
            }
            changedScopes = scopeNames.filter(changed.contains)
        }
        return ServiceGraph.Changes(
            added: added, removed: removed, changed: changedSlots.map { names[$0] },
            rebuilt: rebuiltSlots.map { names[$0] }, carried: SlotNames(allBut: rebuiltSlots, of: names),
            rebuiltSlots: rebuiltSlots, inPlace: inPlace, changedScopes: changedScopes,
            removedScopes: old.scopeNames.filter { !scopeNames.contains($0) })
    }
}

extension ServiceGraph {
    /// The slot of `name`: `guess` when that slot holds it (no hashing), else a lookup.
    func slot(of name: String, near guess: Int) -> Int? { slot(of: name, near: guess, names: serviceNames) }

    /// ``slot(of:near:)`` with `names`, this graph's ``serviceNames``, read once for a loop.
    func slot(of name: String, near guess: Int, names: [String]) -> Int? {
        // From the layout's array of names: no visit to the node (a cache miss in a large graph).
        if guess < names.count && names[guess] == name { return guess }
        return layout.slots[name]
    }
}
