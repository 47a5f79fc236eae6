extension ServiceGraph {
    /// Expands every `group:<name>` dependency to the group's members, in declaration order
    /// (see <doc:TypedDependencies>), and checks the groups: a group nobody contributes to is an error unless the
    /// dependency allows it (`group:<name>?`), and a group's members share one value type.
    /// Returns, per slot, each group's members' positions in the slot's dependencies.
    static func resolveGroups(
        specs: [ServiceSpec], accepted: [Int], providers: [AnyServiceProvider?], dependencies: inout [[Int]],
        issues: inout [GraphError.Issue]
    ) -> [[String: [Int]]] {
        var members: [String: [Int]] = [:]
        for (slot, position) in accepted.enumerated() {
            if let group = specs[position].group { members[group, default: []].append(slot) }
        }
        for (group, slots) in members {
            let types = slots.compactMap { providers[$0].map { ($0.valueTypeID, $0.valueType) } }
            guard let first = types.first, types.contains(where: { $0.0 != first.0 }) else { continue }
            let list = slots.map { "'\(specs[accepted[$0]].name)' (\(providers[$0].map { "\($0.valueType)" } ?? "?"))" }
            issues.append(
                .init(
                    code: .typeMismatch,
                    message: "the members of group '\(group)' make different types: \(list.joined(separator: ", ")); "
                        + "a group's members must all make the same type",
                    location: specs[accepted[slots[0]]].location?.appending("group")))
        }
        var result = [[String: [Int]]](repeating: [:], count: accepted.count)
        for (slot, position) in accepted.enumerated() {
            let spec = specs[position]
            var positionOf: [Int: Int] = [:]
            var groupsSeen: Set<String> = []
            for (index, dependency) in spec.dependsOn.enumerated() {
                guard let (group, optional) = ServiceGroups.parse(dependency) else { continue }
                guard !group.isEmpty else {
                    issues.append(
                        .init(
                            code: .invalidName,
                            message: "service '\(spec.name)' depends on \"\(dependency)\", which names no group; "
                                + "write \"group:<name>\" with the name its members give in \"group\"",
                            service: spec.name, location: spec.location?.appending("dependsOn").appending("[\(index)]"))
                    )
                    continue
                }
                guard groupsSeen.insert(group).inserted else {
                    issues.append(
                        .init(
                            code: .duplicateDependency,
                            message: "service '\(spec.name)' lists group '\(group)' twice in dependsOn; remove one",
                            service: spec.name, location: spec.location?.appending("dependsOn").appending("[\(index)]"))
                    )
                    continue
                }
                let groupMembers = members[group] ?? []
                if groupMembers.isEmpty && !optional {
                    var message = "service '\(spec.name)' depends on group '\(group)', which has no members"
                    let hint = NameSuggestion.hint(for: group, among: members.keys)
                    message += hint + (hint.isEmpty ? "; add" : " Otherwise add")
                    message +=
                        " \"group\": \"\(group)\" to the services that belong to it, or depend on "
                        + "\"group:\(group)?\" to allow an empty group"
                    issues.append(
                        .init(
                            code: .missingDependency, message: message, service: spec.name,
                            location: spec.location?.appending("dependsOn").appending("[\(index)]")))
                }
                if spec.group == group {
                    issues.append(
                        .init(
                            code: .cycle,
                            message: "service '\(spec.name)' depends on group '\(group)', which it belongs to: it "
                                + "would depend on itself; remove \"group\": \"\(group)\" from it or the dependency",
                            service: spec.name, location: spec.location?.appending("dependsOn").appending("[\(index)]"))
                    )
                }
                // Where each dependency is already: one pass, however large the group.
                if positionOf.isEmpty {
                    positionOf = Dictionary(dependencies[slot].enumerated().map { ($1, $0) }) { first, _ in first }
                }
                var positions: [Int] = []
                positions.reserveCapacity(groupMembers.count)
                for member in groupMembers where member != slot {
                    if let existing = positionOf[member] {
                        positions.append(existing)
                    } else {
                        positionOf[member] = dependencies[slot].count
                        positions.append(dependencies[slot].count)
                        dependencies[slot].append(member)
                    }
                }
                result[slot][group] = positions
            }
        }
        return result
    }

    /// Checks typed edges (``ServiceSpec/typedDependencies``) and what providers declare they
    /// read (``ServiceProvider/requirements``): each must be a dependency of the node, and its
    /// provider must make the type the key reads (see <doc:TypedDependencies>).
    static func checkTypedEdges(
        specs: [ServiceSpec], accepted: [Int], slotOfName: [String: Int], providers: [AnyServiceProvider?],
        dependencies: [[Int]], issues: inout [GraphError.Issue]
    ) {
        for (slot, position) in accepted.enumerated() {
            // Most nodes declare no typed edge and read nothing declared: nothing to check.
            guard !specs[position].typedDependencies.isEmpty || providers[slot]?.requirements.isEmpty == false
            else { continue }
            let spec = specs[position]
            for key in spec.typedDependencies {
                guard let target = slotOfName[key.name], let provider = providers[target] else { continue }
                if provider.valueTypeID != ObjectIdentifier(key.valueType) {
                    issues.append(
                        .init(
                            code: .typeMismatch,
                            message: "service '\(spec.name)' depends on '\(key.name)' as \(key.valueType), but its "
                                + "provider '\(provider.id)' makes \(provider.valueType); change the key's type or "
                                + "the provider",
                            service: spec.name, location: spec.location?.appending("dependsOn")))
                }
            }
            guard let provider = providers[slot] else { continue }
            let names = Set(dependencies[slot].map { specs[accepted[$0]].name })
            for key in provider.requirements {
                guard names.contains(key.name) else {
                    issues.append(
                        .init(
                            code: .missingDependency,
                            message: "service '\(spec.name)' (provider '\(provider.id)') reads '\(key.name)' but does "
                                + "not depend on it; add \"\(key.name)\" to its dependsOn",
                            service: spec.name, location: spec.location?.appending("dependsOn")))
                    continue
                }
                guard let target = slotOfName[key.name], let made = providers[target],
                    made.valueTypeID != ObjectIdentifier(key.valueType)
                else { continue }
                issues.append(
                    .init(
                        code: .typeMismatch,
                        message: "service '\(spec.name)' (provider '\(provider.id)') reads '\(key.name)' as "
                            + "\(key.valueType), but its provider '\(made.id)' makes \(made.valueType)",
                        service: spec.name, location: spec.location?.appending("dependsOn")))
            }
        }
    }
}
