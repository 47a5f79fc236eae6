internal import Container

/// One service as the config declares it and the overlays change it: each key's value with the
/// file and key path that wrote it.
struct ServiceDeclaration {
    let name: String
    /// The object that declared the service: in the base config, or in an overlay that added it.
    let origin: Field
    /// The service's keys (``ConfigSchema/serviceKeys``). A key an overlay replaced is that
    /// overlay's field; one it reset is its `null`.
    var fields: Fields

    /// The value of `key`, or `nil` when absent or reset to its default by an overlay (`null`).
    func value(_ key: String) -> Field? {
        guard let field = fields[key] else { return nil }
        return field.document > 0 && field.node.isNull ? nil : field
    }
}

extension ConfigDecoder {
    /// Reads the base config's `services`: each service's keys and name. `false` when the list
    /// is over its limit and loading stops.
    mutating func declareServices(_ field: Field) -> Bool {
        guard field.node.isArray else {
            report(
                .wrongType, "must be a list of services, found \(field.node.typeName)", at: field.path,
                in: field.document, field.node.position)
            return true
        }
        let items = field.node.elements
        guard checkServiceCount(items.count, of: field) else { return false }
        declarations.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let object = field.child(item, key: "[\(index)]")
            guard
                let fields = members(
                    of: object, expected: "an object", allowed: ConfigSchema.serviceKeys,
                    misplaced: ConfigSchema.overlayOnlyServiceKeys),
                let name = name(of: object, fields)
            else { continue }
            if declarationIndex[name] == nil { declarationIndex[name] = declarations.count }
            declarations.append(ServiceDeclaration(name: name, origin: object, fields: fields))
        }
        return true
    }

    /// Whether a `services` list of `count` entries is within ``ConfigLimits/maxServices``.
    mutating func checkServiceCount(_ count: Int, of field: Field) -> Bool {
        guard count <= ConfigLimits.maxServices else {
            report(
                .limitExceeded,
                "\(count) services are over the limit of \(ConfigLimits.maxServices) (ConfigLimits.maxServices); "
                    + "split the graph into several configs",
                at: field.path, in: field.document, field.node.position)
            return false
        }
        return true
    }

    /// A service object's required `name`.
    mutating func name(of object: Field, _ fields: Fields) -> String? {
        guard let field = fields["name"] else {
            report(
                .missingKey, "missing required key 'name'; every service needs a unique name", at: object.path,
                in: object.document, object.node.position)
            return nil
        }
        return string(field)
    }

    /// The spec of a declaration; problems of its keys are reported where they were written.
    mutating func decodeService(_ declaration: ServiceDeclaration) -> ServiceSpec {
        let name = declaration.name
        let origin = declaration.origin
        let location = ConfigLocation(
            file: documents[origin.document].file, keyPath: origin.path, line: origin.node.position.line,
            column: origin.node.position.column)

        var providerID: String?
        if let field = declaration.value("provider") {
            providerID = identifier(field, what: "provider id")
        } else {
            let known = registry.providers.keys.sorted().joined(separator: ", ")
            report(
                .missingKey,
                "missing required key 'provider' in service '\(NameRules.visible(name))'; known providers: \(known)",
                at: origin.path, in: origin.document, origin.node.position)
        }

        var dependsOn: [String] = []
        if let field = declaration.value("dependsOn") {
            if field.node.elements.count > ConfigLimits.maxDependencies {
                report(
                    .limitExceeded,
                    "\(field.node.elements.count) dependencies are over the limit of \(ConfigLimits.maxDependencies) per service "
                        + "(ConfigLimits.maxDependencies); depend on a service that groups them",
                    at: field.path, in: field.document, field.node.position)
            } else {
                dependsOn = strings(field, what: "a list of service names") ?? []
            }
        }

        let options = decodeOptions(of: declaration)
        let timeout = declaration.value("timeoutMs").flatMap { number($0, limit: .timeout) }.map {
            Duration.milliseconds($0)
        }
        let retry = declaration.value("retry").map { decodeRetry($0) } ?? RetryPolicy.none
        let failure = declaration.value("failure").flatMap { failureKind($0) }
        // Scope names are checked against the declared `scopes` by the graph validator.
        let scope = declaration.value("scope").flatMap { identifier($0, what: "scope name") }
        let group = declaration.value("group").flatMap { identifier($0, what: "group name") }
        // An input is lazy unless it says otherwise: `start()` does not wait for the app's value.
        let start = declaration.value("start").flatMap { startPolicy($0) } ?? (providerID == "input" ? .lazy : .eager)
        let isOptional = declaration.value("optional").flatMap { bool($0) } ?? false
        let sync = declaration.value("sync").flatMap { bool($0) } ?? false
        let declaredIsolation = declaration.value("isolation").flatMap { isolation($0) }
        let declaredPriority = declaration.value("priority").flatMap { priority($0) }

        var spec: ServiceSpec
        if providerID == "input" {
            spec = ServiceSpec(
                name: name, provider: inputProvider(of: declaration), dependsOn: dependsOn, options: options,
                timeout: timeout, retry: retry, defaultFailure: failure, location: location)
        } else if let providerID {
            spec = ServiceSpec(
                name: name, provider: providerID, dependsOn: dependsOn, options: options, timeout: timeout,
                retry: retry, defaultFailure: failure, location: location)
        } else {
            // Keep the service in the graph so dependencies on it are not misreported.
            unresolved.insert(name)
            spec = ServiceSpec(
                name: name, provider: UnresolvedProvider(), dependsOn: dependsOn, options: options, location: location)
        }
        spec.lifetime = scope.map { .scope($0) } ?? .app
        spec.group = group
        spec.start = start
        spec.isOptional = isOptional
        spec.sync = sync
        spec.isolation = declaredIsolation
        spec.priority = declaredPriority
        return spec
    }

    /// The input provider of the value type an input's `options.type` names; reported (and a
    /// string input in its place) when it is missing or unknown.
    private mutating func inputProvider(of declaration: ServiceDeclaration) -> AnyServiceProvider {
        let known = registry.inputTypes.keys.sorted()
        let fallback = AnyServiceProvider(InputProvider<String>())
        let field = declaration.value("options")
        guard let field, let typeNode = field.node.members.last(where: { $0.key == "type" })?.value else {
            let place = field ?? declaration.origin
            report(
                .missingKey,
                "input '\(NameRules.visible(declaration.name))' declares no value type; add \"options\": { \"type\": \"string\" } "
                    + "(known input types: \(known.joined(separator: ", ")))",
                at: place.path, in: place.document, place.node.position)
            return fallback
        }
        let typeField = field.child(typeNode, key: "type")
        guard let name = string(typeField) else { return fallback }
        guard let provider = registry.inputTypes[name] else {
            report(
                .invalidValue,
                "unknown input type '\(NameRules.visible(name))'" + NameSuggestion.hint(for: name, among: known)
                    + " (known input types: \(known.joined(separator: ", ")); an app adds its own with "
                    + "ProviderRegistry.registerInput(_:named:))",
                at: typeField.path, in: typeField.document, typeField.node.position)
            return fallback
        }
        return provider
    }

    /// `options` and `secretOptions`. Relative paths start at the folder of the file that
    /// wrote the options.
    private mutating func decodeOptions(of declaration: ServiceDeclaration) -> ServiceOptions {
        let optionsField = declaration.value("options")
        let folder = documents[optionsField?.document ?? declaration.origin.document].baseDirectory
        var options = ServiceOptions(baseDirectory: folder, pathRoots: pathRoots)
        if let field = optionsField {
            let values = read(field) { node, problems -> [String: ServiceOptions.Value]? in
                guard node.isObject, case .object(let values) = node.value else {
                    problems.append(
                        ReadProblem(
                            code: .wrongType, message: "must be an object, found \(node.typeName)",
                            position: node.position))
                    return nil
                }
                PositionedValue.duplicateKeys(node.members, &problems)
                return values
            }
            // A later duplicate key wins (the duplicate is reported).
            options.values = values ?? [:]
        }
        if let field = declaration.value("secretOptions") {
            let listed = strings(field, what: "a list of option names")
            // A malformed list is reported, and the names it does hold stay secret all the same:
            // the errors of this very file must not show their values.
            options.secretKeys = Set(
                listed ?? (field.node.isArray ? field.node.elements : [field.node]).compactMap(\.stringValue))
            if let listed { reportUnknownSecrets(listed, in: field, of: declaration.name, options: options) }
        }
        return options
    }

    /// Reports the names of `secrets` (the well-formed `secretOptions` list at `field`) that are
    /// not options of the service.
    private mutating func reportUnknownSecrets(
        _ secrets: [String], in field: Field, of service: String, options: ServiceOptions
    ) {
        // Made on the first unknown name only; sorted, so that ties are decided the same every run.
        var suggestions: NameSuggestion.Index?
        for (index, secret) in secrets.enumerated() where options.values[secret] == nil {
            var message =
                "secretOptions names '\(NameRules.visible(secret))', which is not an option of service "
                + "'\(NameRules.visible(service))'"
            if suggestions == nil { suggestions = NameSuggestion.Index(options.values.keys.sorted()) }
            message += suggestions?.closest(to: secret).map { "; did you mean '\($0)'?" } ?? ""
            // The entry's own position: looking it up by key path would walk the object again per entry.
            report(
                .invalidValue, message, at: field.path + "[\(index)]", in: field.document,
                field.node.elements[index].position)
        }
    }

    private mutating func decodeRetry(_ field: Field) -> RetryPolicy {
        // Shorthand: "retry": 3 means three runs with no delay.
        if field.node.isInt {
            return read(field) { $0.retryAttempts(&$1) }.map { RetryPolicy(maxAttempts: $0) } ?? .none
        }
        guard
            let fields = members(
                of: field, expected: "an object (or an integer: maxAttempts)", allowed: ConfigSchema.retryKeys)
        else { return .none }
        var policy = RetryPolicy.none
        if let attempts = fields["maxAttempts"] {
            if let value = read(attempts, { $0.retryAttempts(&$1) }) { policy.maxAttempts = value }
        } else {
            report(
                .missingKey, "missing required key 'maxAttempts'", at: field.path, in: field.document,
                field.node.position)
        }
        var initialMs: Double?
        if let delay = fields["initialDelayMs"], let value = number(delay, limit: .delay) {
            policy.initialDelay = .milliseconds(value)
            initialMs = value
        }
        if let delay = fields["maxDelayMs"], let value = number(delay, limit: .delay) {
            policy.maxDelay = .milliseconds(value)
            checkCap(value, of: delay, above: initialMs, named: "initialDelayMs")
        }
        if let multiplier = fields["multiplier"], let value = number(multiplier, limit: .multiplier) {
            policy.multiplier = value
        }
        // Without a cap of its own, a first delay longer than the default cap is not cut short
        // (as `policy.retryAfterMaxMs` defaults to `retryAfterMs` when that is longer).
        if fields["maxDelayMs"] == nil && policy.initialDelay > policy.maxDelay {
            policy.maxDelay = policy.initialDelay
        }
        return policy
    }
}

/// Stands in for a service whose `provider` key is missing or malformed, so that the rest of
/// the graph can still be validated; a config with such a service is never built.
private struct UnresolvedProvider: ServiceProvider {
    struct Unresolved: Sendable {}
    struct NotBuildable: Error {}
    let id = "<missing provider>"
    func make(_ context: ProviderContext) async throws -> Unresolved { throw NotBuildable() }
}
