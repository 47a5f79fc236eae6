extension ServiceGraph {
    /// What is wrong with `requirement` in this graph, checked when an entry point runs: a
    /// service it requires that the graph does not declare, reads as another type, or that
    /// lives in a scope the entry point does not run in. Empty when the entry point can read
    /// every service it declares, which is what makes `@Needs` properties safe to read.
    ///
    /// A graph validated with the entry point among its `requirements` never has a problem here;
    /// one declared in code without them gets the same issues at the first run instead.
    func problems(with requirement: ServiceGraph.Requirement) -> [GraphError.Issue] {
        var slots: [Int] = []
        return problems(with: requirement, slots: &slots)
    }

    /// ``problems(with:)``, appending to `slots` the slot of each key the graph declares.
    private func problems(with requirement: ServiceGraph.Requirement, slots: inout [Int]) -> [GraphError.Issue] {
        var issues: [GraphError.Issue] = []
        for key in requirement.keys {
            guard let slot = layout.slots[key.name] else {
                var message =
                    "\(requirement.reader) requires service '\(NameRules.visible(key.name))', which the graph "
                    + "does not declare"
                message += NameSuggestion.hint(for: key.name, among: serviceNames)
                issues.append(
                    .init(
                        code: .unknownRequirement, message: message, service: key.name, location: requirement.location))
                continue
            }
            slots.append(slot)
            let node = nodes[slot]
            if node.provider.valueTypeID != ObjectIdentifier(key.valueType) {
                issues.append(
                    .init(
                        code: .typeMismatch,
                        message: "\(requirement.reader) reads service '\(key.name)' as \(key.valueType), but its "
                            + "provider '\(node.provider.id)' makes \(node.provider.valueType); declare it as "
                            + SwiftRemedy.key(key.name, type: node.provider.valueType),
                        service: key.name, location: requirement.location))
            }
            if let scope = node.lifetime.scope, !ScopeLineage(scopes).sees(scope, from: requirement.scope) {
                issues.append(Self.scopeMismatch(requirement, reads: key.name, of: scope))
            }
        }
        return issues
    }
}

extension ServiceGraph {
    /// `requirement` reads `name`, a service of `scope`, which it cannot see from its own scope.
    static func scopeMismatch(
        _ requirement: ServiceGraph.Requirement, reads name: String, of scope: String
    ) -> GraphError.Issue {
        let runsIn = requirement.scope.map { "runs in scope '\($0)'" } ?? "does not run in a scope"
        return .init(
            code: .scopeMismatch,
            message: "\(requirement.reader) requires '\(name)' of scope '\(scope)' but \(runsIn); declare the "
                + "entry point's scope as '\(scope)' (or a scope nested in it) or require an app service",
            service: name, location: requirement.location)
    }

    /// Throws the ``problems(with:)`` of `requirement`, if it has any.
    func check(_ requirement: ServiceGraph.Requirement) throws(GraphError) {
        let issues = problems(with: requirement)
        if !issues.isEmpty { throw GraphError(issues: issues) }
    }

    /// The slots of `requirement`'s keys, in its order, once it is checked (``check(_:)``).
    func slots(checking requirement: ServiceGraph.Requirement) throws(GraphError) -> [Int] {
        var slots: [Int] = []
        slots.reserveCapacity(requirement.keys.count)
        let issues = problems(with: requirement, slots: &slots)
        if !issues.isEmpty { throw GraphError(issues: issues) }
        return slots
    }
}
