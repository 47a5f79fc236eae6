extension ServiceGraph {
    /// This graph with some services replaced, for a test or a preview (see <doc:TypedDependencies>).
    ///
    /// Each override is checked like any provider: it must name a service of the graph (else
    /// `unknownService`, with a "did you mean"), at most once (`duplicateService`), with the
    /// type the service's readers expect (`typeMismatch`, naming both types). The result is then
    /// validated as a whole, so new dependencies or a new lifetime are checked like a
    /// declaration's (missing services, cycles, scopes). Every problem is reported at once.
    ///
    /// ```swift
    /// let preview = try graph.overriding([.value(.session, Session.signedOut)])
    /// ```
    ///
    /// - Parameter overrides: the replacements; later overrides of an overridden graph add to it.
    /// - Returns: the new graph; ``overriddenServices`` names the replaced services.
    /// - Throws: ``GraphError`` listing every problem.
    public func overriding(_ overrides: [ServiceGraph.Override]) throws(GraphError) -> ServiceGraph {
        guard !overrides.isEmpty else { return self }
        let replacements = try checked(overrides)
        // Each service is declared again as it was (groups, typed edges and all), with what its
        // override replaces.
        let specs = nodes.map { node in
            guard let override = replacements[node.name] else { return node.declaration }
            return override.applied(to: node.declaration)
        }
        // What each scope's readers require was checked when this graph was validated; it is
        // kept, as the requirements of each scope.
        var requirements: [ServiceGraph.Requirement] = []
        for scope in scopeNames {
            guard let part = scopeParts[scope], let read = scopeReads[scope] else { continue }
            let external = part.nodes[part.builtCount...].filter { read.contains($0.name) }
            requirements.append(
                ServiceGraph.Requirement(
                    reader: "scope '\(scope)'",
                    keys: external.map { AnyServiceKey(name: $0.name, valueType: $0.provider.valueType) },
                    scope: scope))
        }
        let validated = try ServiceGraph(specs, requirements: requirements, scopes: scopes)
        return ServiceGraph(
            nodes: validated.nodes, scopes: validated.scopes, scopeReads: scopeReads,
            overridden: overridden.union(replacements.keys))
    }

    /// The services replaced by ``overriding(_:)``, in declaration order.
    public var overriddenServices: [String] { serviceNames.filter { overridden.contains($0) } }

    /// Whether `name` was replaced by ``overriding(_:)``.
    public func isOverridden(_ name: String) -> Bool { overridden.contains(name) }

    /// The overrides by service, or every problem with them: unknown services, services
    /// overridden twice, replacements of another type.
    private func checked(_ overrides: [ServiceGraph.Override]) throws(GraphError) -> [String: ServiceGraph.Override] {
        var issues: [GraphError.Issue] = []
        var accepted: [String: ServiceGraph.Override] = [:]
        for override in overrides {
            let name = override.service
            guard let slot = layout.slots[name] else {
                var message = "an override names service '\(name)', which the graph does not declare"
                if let suggestion = NameSuggestion.closest(to: name, among: serviceNames) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += " (services: \(serviceNames.joined(separator: ", ")))"
                }
                issues.append(
                    .init(code: .unknownService, message: message, service: name, location: override.location))
                continue
            }
            if let first = accepted[name] {
                let firstPlace = first.location.map { " (first at \($0))" } ?? ""
                issues.append(
                    .init(
                        code: .duplicateService,
                        message: "service '\(name)' is overridden twice\(firstPlace); keep one override",
                        service: name, location: override.location))
                continue
            }
            accepted[name] = override
            let node = nodes[slot]
            if ObjectIdentifier(node.provider.valueType) != ObjectIdentifier(override.provider.valueType) {
                issues.append(
                    .init(
                        code: .typeMismatch,
                        message: "the override of service '\(name)' makes \(override.provider.valueType), but its "
                            + "readers expect \(node.provider.valueType) (what provider '\(node.provider.id)' makes); "
                            + "override it with a \(node.provider.valueType)",
                        service: name, location: override.location))
            }
        }
        guard issues.isEmpty else { throw GraphError(issues: issues) }
        return accepted
    }
}
