extension ServiceGraph {
    /// Validates `specs` and builds the graph, resolving provider ids in `registered` (see
    /// ``init(_:registry:requirements:scopes:)``, which the plugins layer adds).
    convenience init(
        _ specs: [ServiceSpec], resolving registered: [String: AnyServiceProvider],
        requirements: [ServiceGraph.Requirement],
        scopes: [Scope]
    ) throws(GraphError) {
        // Past the limit nothing else is checked: redacting any message would cost what it avoids.
        if let issue = Self.secretLimitIssue(specs) { throw GraphError(issues: [issue]) }
        var issues: [GraphError.Issue] = []
        var slotOfName: [String: Int] = [:]
        slotOfName.reserveCapacity(specs.count)
        // Positions in `specs` of the accepted specs, by slot: the specs are read in place,
        // not copied (a spec holds a dozen references).
        var accepted: [Int] = []
        accepted.reserveCapacity(specs.count)
        for (position, spec) in specs.enumerated() {
            if spec.name.isEmpty {
                issues.append(
                    .init(
                        code: .invalidName, message: "a service has an empty name; give it a name",
                        location: spec.location?.appending("name")))
                continue
            }
            if let problem = NameRules.problem(with: spec.name) {
                issues.append(
                    .init(
                        code: .invalidName, message: "service name '\(NameRules.visible(spec.name))' \(problem)",
                        location: spec.location?.appending("name")))
                continue
            }
            if let problem = Self.edgeSyntaxProblem(service: spec.name) {
                issues.append(
                    .init(
                        code: .invalidName, message: problem, service: spec.name,
                        location: spec.location?.appending("name")))
                continue
            }
            if let group = spec.group, let problem = Self.edgeSyntaxProblem(group: group) {
                issues.append(
                    .init(
                        code: .invalidName, message: problem, service: spec.name,
                        location: spec.location?.appending("group")))
            }
            if let first = slotOfName[spec.name] {
                let firstPlace = specs[accepted[first]].location.map { " (first declared at \($0))" } ?? ""
                issues.append(
                    .init(
                        code: .duplicateService,
                        message: "service '\(spec.name)' is declared twice\(firstPlace); rename or remove one",
                        service: spec.name, location: spec.location?.appending("name")))
                continue
            }
            slotOfName[spec.name] = accepted.count
            accepted.append(position)
        }

        var providers: [AnyServiceProvider?] = []
        providers.reserveCapacity(accepted.count)
        // What each provider read its node's options into: read once, here, and kept in the node.
        var settings: [(any Sendable)?] = []
        settings.reserveCapacity(accepted.count)
        var dependencies: [[Int]] = []
        dependencies.reserveCapacity(accepted.count)
        // "Did you mean" for unknown names, prepared on the first one: a valid graph never pays for it.
        var suggestions = Suggestions { accepted.map { specs[$0].name } }
        // The redactor of the graph's secrets, made on the first rejected options, for all of them.
        var redaction = Redaction { accepted.flatMap { specs[$0].options.secretStrings } }
        let isOptional = accepted.map { specs[$0].isOptional }
        for position in accepted {
            let (provider, read) = Self.resolveProvider(
                of: specs[position], registered: registered, redaction: &redaction, issues: &issues)
            providers.append(provider)
            settings.append(read)
            if provider?.isInput == true { Self.checkInput(specs[position], issues: &issues) }
            dependencies.append(
                Self.resolveDependencies(
                    of: specs[position], slots: slotOfName, isOptional: isOptional, suggestions: &suggestions,
                    issues: &issues))
        }
        let groups = Self.resolveGroups(
            specs: specs, accepted: accepted, providers: providers, dependencies: &dependencies, issues: &issues)
        Self.checkTypedEdges(
            specs: specs, accepted: accepted, slotOfName: slotOfName, providers: providers, dependencies: dependencies,
            issues: &issues)
        Self.findCycles(names: accepted.map { specs[$0].name }, dependencies: dependencies) {
            specs[accepted[$0]].location
        }.forEach { issues.append($0) }
        for requirement in requirements {
            Self.check(
                requirement, slots: slotOfName, providers: providers, suggestions: &suggestions, issues: &issues)
        }
        let scoping = Self.checkScopes(
            declared: scopes, specs: specs, accepted: accepted, dependencies: dependencies,
            requirements: requirements, slots: slotOfName, issues: &issues)
        // Every provider is resolved when there is no issue (an unresolved one is an issue).
        let resolved = providers.compactMap { $0 }
        guard issues.isEmpty, resolved.count == accepted.count else { throw GraphError(issues: issues) }

        var nodes: [Node] = []
        nodes.reserveCapacity(accepted.count)
        for (slot, position) in accepted.enumerated() {
            var declaration = specs[position]
            // A spec that names its provider by id keeps the one resolved (an inline one already
            // is it: left alone, the spec's storage is shared, not copied).
            if case .id = declaration.provider { declaration.provider = .inline(resolved[slot]) }
            nodes.append(
                Node(
                    name: specs[position].name, provider: resolved[slot], dependencies: dependencies[slot],
                    dependencyNames: dependencies[slot].map { specs[accepted[$0]].name },
                    settings: settings[slot], timeout: specs[position].timeout, retry: specs[position].retry,
                    defaultFailure: specs[position].defaultFailure,
                    lifetime: specs[position].lifetime, groups: groups[slot], declaration: declaration))
        }
        self.init(nodes: nodes, scopes: scoping.scopes, scopeReads: scoping.reads)
        let synchronous = accepted.indices.compactMap { slot in
            specs[accepted[slot]].sync ? synchronousIssue(slot, location: specs[accepted[slot]].location) : nil
        }
        if !synchronous.isEmpty { throw GraphError(issues: synchronous) }
    }

    /// The problem of node `slot`, declared `sync`, when its closure holds an asynchronous node.
    private func synchronousIssue(_ slot: Int, location: ConfigLocation?) -> GraphError.Issue? {
        guard let found = asynchronousNode(inClosureOf: slot) else { return nil }
        let name = nodes[slot].name
        let culprit = found == slot ? "its provider" : "it depends on '\(nodes[found].name)', whose provider"
        return .init(
            code: .notSynchronous,
            message: "service '\(name)' is declared sync, but \(culprit) \(Self.asynchronousReason(nodes[found])); "
                + "make it synchronous (a SynchronousServiceProvider, without timeout or retries), or drop sync",
            service: name, location: location?.appending("sync"))
    }

    /// Why `node` cannot run on a caller's thread.
    static func asynchronousReason(_ node: Node) -> String {
        if node.isInput { return "'\(node.provider.id)' waits for the value the app supplies (an input)" }
        if node.provider.makeNow == nil {
            // An override's provider: the test's replacement, not the app's declaration, is the one to change.
            guard node.provider.id == Override.providerID else { return "'\(node.provider.id)' is asynchronous" }
            return "'override' is asynchronous (replace it with .value or .synchronous to keep it synchronous)"
        }
        if node.timeout != nil { return "'\(node.provider.id)' is run with a timeout" }
        return "'\(node.provider.id)' is run with retries"
    }

    /// The spec's provider, and the settings it read from the spec's options (`nil`: the options).
    private static func resolveProvider(
        of spec: ServiceSpec, registered: [String: AnyServiceProvider], redaction: inout Redaction,
        issues: inout [GraphError.Issue]
    ) -> (AnyServiceProvider?, (any Sendable)?) {
        let provider: AnyServiceProvider
        switch spec.provider {
        case .inline(let inline):
            provider = inline
        case .id(let id):
            guard let found = registered[id] else {
                let known = registered.keys.sorted()
                var message = "service '\(spec.name)' uses unknown provider '\(NameRules.visible(id))'"
                message += NameSuggestion.hint(for: id, among: known)
                message +=
                    known.isEmpty
                    ? " (no providers are registered)" : " (known providers: \(known.joined(separator: ", ")))"
                issues.append(
                    .init(
                        code: .unknownProvider, message: message, service: spec.name,
                        location: spec.location?.appending("provider")))
                return (nil, nil)
            }
            provider = found
        }
        do {
            return (provider, try provider.settings(spec.options))
        } catch {
            // A provider may quote the offending value: never let it quote a secret.
            let redactor = redaction.redactor()
            let explanation = redactor.redact(String(describing: error))
            let optionError = error as? OptionError
            var underlying: (any Error)? = error
            if !spec.options.secretStrings.isEmpty {
                underlying = optionError.map { OptionError(option: $0.option, message: redactor.redact($0.message)) }
            }
            issues.append(
                .init(
                    code: .invalidOptions,
                    message: "service '\(spec.name)' (provider '\(provider.id)'): \(explanation)",
                    service: spec.name, location: spec.location?.appending("options"), option: optionError?.option,
                    underlying: underlying))
            return (provider, nil)
        }
    }

    /// The slots of `spec`'s dependencies; an edge to an optional service is written
    /// `"<name>?"`, and only such an edge.
    private static func resolveDependencies(
        of spec: ServiceSpec, slots: [String: Int], isOptional: [Bool], suggestions: inout Suggestions,
        issues: inout [GraphError.Issue]
    ) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(spec.dependsOn.count)
        // Lists of dependencies are short: comparing with the earlier entries is cheaper than a
        // set per service. Long lists (more than 16) still use a set, to stay linear.
        var seen: Set<String>? = spec.dependsOn.count > 16 ? [] : nil
        for (index, written) in spec.dependsOn.enumerated() {
            // Groups are expanded to their members by `resolveGroups`.
            if ServiceGroups.parse(written) != nil { continue }
            let optionalEdge = written.hasSuffix("?")
            let dependency = optionalEdge ? String(written.dropLast()) : written
            // Built only for a message: most services have no problem to report.
            var location: ConfigLocation? { spec.location?.appending("dependsOn").appending("[\(index)]") }
            let isDuplicate =
                if seen != nil {
                    seen?.insert(dependency).inserted == false
                } else {
                    spec.dependsOn[..<index].contains { ($0.hasSuffix("?") ? $0.dropLast() : $0[...]) == dependency }
                }
            guard !isDuplicate else {
                issues.append(
                    .init(
                        code: .duplicateDependency,
                        message: "service '\(spec.name)' lists '\(dependency)' twice in dependsOn; remove one",
                        service: spec.name, location: location))
                continue
            }
            guard let slot = slots[dependency] else {
                if let problem = NameRules.problem(with: dependency) {
                    // No declared service can have this name: say what is wrong with it.
                    issues.append(
                        .init(
                            code: .invalidName,
                            message: "service '\(spec.name)' depends on '\(NameRules.visible(dependency))', which "
                                + problem,
                            service: spec.name, location: location))
                    continue
                }
                var message = "service '\(spec.name)' depends on '\(dependency)', which is not declared"
                // A service never depends on itself (a cycle): that is no fix to offer.
                if let suggestion = suggestions.closest(to: dependency), suggestion != spec.name {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += "; declare it or remove it from dependsOn"
                }
                issues.append(
                    .init(
                        code: .missingDependency, message: message, service: spec.name,
                        location: location))
                continue
            }
            if isOptional[slot] != optionalEdge {
                issues.append(optionalEdgeIssue(spec, dependency, isOptional: isOptional[slot], at: location))
                continue
            }
            result.append(slot)
        }
        return result
    }

    /// An input has no dependencies and lives in the app: the app supplies its value once.
    private static func checkInput(_ spec: ServiceSpec, issues: inout [GraphError.Issue]) {
        if !spec.dependsOn.isEmpty {
            issues.append(
                .init(
                    code: .invalidInput,
                    message:
                        "input '\(spec.name)' depends on \(spec.dependsOn.joined(separator: ", ")); an input's value "
                        + "is supplied by the app, so it needs nothing: remove its dependsOn",
                    service: spec.name, location: spec.location?.appending("dependsOn")))
        }
        if let scope = spec.lifetime.scope {
            issues.append(
                .init(
                    code: .invalidInput,
                    message: "input '\(spec.name)' lives in scope '\(scope)'; inputs are app services (supplied once "
                        + "with container.supply(_:_:)): remove its scope",
                    service: spec.name, location: spec.location?.appending("scope")))
        }
    }

    /// A plain edge to an optional service, or an optional edge to a service that is not.
    private static func optionalEdgeIssue(
        _ spec: ServiceSpec, _ dependency: String, isOptional: Bool, at location: ConfigLocation?
    ) -> GraphError.Issue {
        let message =
            isOptional
            ? "service '\(spec.name)' depends on '\(dependency)', which is optional: a request may succeed without "
                + "it; depend on it as \"\(dependency)?\" and read it with context.optional(_:)"
            : "service '\(spec.name)' depends on '\(dependency)?', but '\(dependency)' is not optional; depend on "
                + "\"\(dependency)\", or declare '\(dependency)' optional (\"optional\": true)"
        return .init(code: .optionalEdge, message: message, service: spec.name, location: location)
    }

    private static func check(
        _ requirement: ServiceGraph.Requirement, slots: [String: Int], providers: [AnyServiceProvider?],
        suggestions: inout Suggestions, issues: inout [GraphError.Issue]
    ) {
        for key in requirement.keys {
            guard let slot = slots[key.name] else {
                let name = NameRules.visible(key.name)
                var message = "\(requirement.reader) requires service '\(name)', which is not declared"
                if let suggestion = suggestions.closest(to: key.name) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += "; declare a service named '\(name)'"
                }
                issues.append(
                    .init(
                        code: .unknownRequirement, message: message, service: key.name,
                        location: requirement.location))
                continue
            }
            guard let provider = providers[slot] else { continue }
            if ObjectIdentifier(provider.valueType) != ObjectIdentifier(key.valueType) {
                issues.append(
                    .init(
                        code: .typeMismatch,
                        message: "\(requirement.reader) reads service '\(key.name)' as \(key.valueType), but its "
                            + "provider '\(provider.id)' makes \(provider.valueType); use a provider that makes "
                            + "\(key.valueType) or change the key's type",
                        service: key.name, location: requirement.location))
            }
        }
    }
}

/// The redactor of one validation: the secret option values of every declared service, made on
/// first use (a valid graph never pays for it, and makes its own: ``ServiceGraph/redactor``).
private struct Redaction {
    private var secrets: (() -> [String])?
    private var made: Redactor?

    init(_ secrets: @escaping () -> [String]) { self.secrets = secrets }

    mutating func redactor() -> Redactor {
        if let made { return made }
        let redactor = Redactor(secrets: secrets?() ?? [])
        made = redactor
        secrets = nil
        return redactor
    }
}

/// The "did you mean" index of one validation, built from the declared names on first use.
private struct Suggestions {
    private var names: (() -> [String])?
    private var index = NameSuggestion.Index([])

    init(_ names: @escaping () -> [String]) { self.names = names }

    mutating func closest(to name: String) -> String? {
        if let names {
            index = NameSuggestion.Index(names())
            self.names = nil
        }
        return index.closest(to: name)
    }
}
