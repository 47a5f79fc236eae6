internal import Container
internal import Foundation

/// Turns a parsed config file into specs, a policy and entry points, collecting every
/// problem with its position, then runs the core graph validator and merges its issues.
struct ConfigDecoder {
    static let supportedVersion = 1
    static let topLevelKeys = ["version", "description", "policy", "scopes", "services", "entryPoints"]
    static let policyKeys = ["failFast", "unclassifiedFailure", "maxAttempts", "retryAfterMs", "retryAfterMaxMs"]
    static let serviceKeys = [
        "name", "provider", "dependsOn", "options", "secretOptions", "timeoutMs", "retry", "failure", "scope", "group",
        "description",
    ]
    static let retryKeys = ["maxAttempts", "initialDelayMs", "multiplier", "maxDelayMs"]

    let file: String
    let baseDirectory: String
    let registry: ProviderRegistry
    let root: JSONNode
    /// Folders the app names for `$root/...` path options (``ServiceOptions/pathRoots``).
    var pathRoots: [String: String] = [:]
    var issues: [ConfigError.Issue] = []
    /// Services whose provider could not be read: graph issues about their type are noise.
    private var unresolved = Set<String>()

    init(file: String, baseDirectory: String, registry: ProviderRegistry, root: JSONNode) {
        self.file = file
        self.baseDirectory = baseDirectory
        self.registry = registry
        self.root = root
    }

    // MARK: Loading

    mutating func load() throws(ConfigError) -> ContainerConfig {
        guard
            let top = members(
                of: root, at: "", expected: "an object with \"version\" and \"services\"",
                allowed: Self.topLevelKeys)
        else { throw error() }

        checkVersion(top["version"])
        let policy = decodePolicy(top["policy"])
        let scopes = top["scopes"].flatMap { strings($0, at: "scopes", what: "a list of scope names") } ?? []
        var specs: [ServiceSpec] = []
        if let services = top["services"] {
            if case .array(let items) = services.value {
                guard items.count <= ConfigLimits.maxServices else {
                    // Validating a graph this large is the cost the limit exists to avoid.
                    report(
                        .limitExceeded,
                        "\(items.count) services are over the limit of \(ConfigLimits.maxServices) "
                            + "(ConfigLimits.maxServices); split the graph into several configs",
                        at: "services", services.position)
                    throw error()
                }
                for (index, item) in items.enumerated() {
                    if let spec = decodeService(item, at: "services[\(index)]") { specs.append(spec) }
                }
            } else {
                report(
                    .wrongType, "must be a list of services, found \(services.typeName)", at: "services",
                    services.position)
            }
        } else {
            report(.missingKey, "missing required key 'services'; add \"services\": [ ... ]", at: "", root.position)
        }
        let (entryPoints, requirements) = decodeEntryPoints(top["entryPoints"])

        var graph: ServiceGraph?
        do {
            graph = try ServiceGraph(specs, registry: registry, requirements: requirements, scopes: scopes)
        } catch {
            for issue in error.issues { add(graphIssue: issue) }
        }
        guard issues.isEmpty, let graph else { throw self.error(redacting: specs) }
        return ContainerConfig(file: file, specs: specs, policy: policy, entryPoints: entryPoints, graph: graph)
    }

    private func error(redacting specs: [ServiceSpec] = []) -> ConfigError {
        // Secret option values never appear in an error, even if a provider quoted one.
        let redactor = Redactor(secrets: specs.flatMap { $0.options.secretStrings })
        let sorted = issues.enumerated().sorted { lhs, rhs in
            let left = SourcePosition(line: lhs.element.location.line ?? 1, column: lhs.element.location.column ?? 1)
            let right = SourcePosition(line: rhs.element.location.line ?? 1, column: rhs.element.location.column ?? 1)
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map {
            // Control characters of the input are shown as escapes: they could rewrite a terminal.
            var location = $0.element.location
            location.keyPath = location.keyPath.map(NameRules.escapingControlCharacters)
            return ConfigError.Issue(
                code: $0.element.code,
                message: NameRules.escapingControlCharacters(redactor.redact($0.element.message)),
                location: location)
        }
        return ConfigError(file: file, issues: sorted)
    }

    private mutating func checkVersion(_ node: JSONNode?) {
        guard let node else {
            report(
                .unsupportedVersion, "missing required key 'version'; add \"version\": \(Self.supportedVersion)",
                at: "", root.position)
            return
        }
        guard case .int(let version) = node.value else {
            report(
                .wrongType, "must be an integer, found \(node.typeName); write \"version\": \(Self.supportedVersion)",
                at: "version", node.position)
            return
        }
        if version != Self.supportedVersion {
            report(
                .unsupportedVersion,
                "config format version \(version) is not supported; this loader reads version \(Self.supportedVersion)",
                at: "version", node.position)
        }
    }

    private mutating func decodePolicy(_ node: JSONNode?) -> BuildPolicy {
        guard let node else { return .default }
        guard let fields = members(of: node, at: "policy", expected: "an object", allowed: Self.policyKeys) else {
            return .default
        }
        var policy = BuildPolicy.default
        if let failFast = fields["failFast"], let value = bool(failFast, at: "policy.failFast") {
            policy.failureMode = value ? .failFast : .continueIndependent
        }
        if let node = fields["unclassifiedFailure"],
            let kind = failureKind(node, at: "policy.unclassifiedFailure")
        {
            policy.classifier = kind == .permanent ? .permanentUnlessClassified : .default
        }
        // The attempt budget (DESIGN §11).
        if let node = fields["maxAttempts"] {
            if case .int(let attempts) = node.value, attempts >= 1, attempts <= BuildPolicy.maximumAttempts {
                policy.maxAttempts = attempts
            } else {
                report(
                    node.isInt ? .limitExceeded : .wrongType,
                    "must be an integer from 1 to \(BuildPolicy.maximumAttempts) (BuildPolicy.maximumAttempts): the "
                        + "builds one generation may have; found \(node.describedValue)",
                    at: "policy.maxAttempts", node.position)
            }
        }
        if let node = fields["retryAfterMs"], let value = number(node, at: "policy.retryAfterMs", limit: .delay) {
            policy.retryAfter = Backoff(initialDelay: .milliseconds(value), maxDelay: policy.retryAfter.maxDelay)
        }
        if let node = fields["retryAfterMaxMs"],
            let value = number(node, at: "policy.retryAfterMaxMs", limit: .delay)
        {
            policy.retryAfter.maxDelay = .milliseconds(value)
        }
        return policy
    }

    private mutating func decodeService(_ node: JSONNode, at path: String) -> ServiceSpec? {
        guard let fields = members(of: node, at: path, expected: "an object", allowed: Self.serviceKeys) else {
            return nil
        }
        let location = ConfigLocation(file: file, keyPath: path, line: node.position.line, column: node.position.column)
        guard let nameNode = fields["name"] else {
            report(
                .missingKey, "missing required key 'name'; every service needs a unique name", at: path, node.position)
            return nil
        }
        guard let name = string(nameNode, at: path + ".name") else { return nil }

        var providerID: String?
        if let providerNode = fields["provider"] {
            providerID = identifier(providerNode, at: path + ".provider", what: "provider id")
        } else {
            let known = registry.providers.keys.sorted().joined(separator: ", ")
            report(
                .missingKey, "missing required key 'provider' in service '\(name)'; known providers: \(known)",
                at: path, node.position)
        }

        var dependsOn: [String] = []
        if let node = fields["dependsOn"] {
            if case .array(let items) = node.value, items.count > ConfigLimits.maxDependencies {
                report(
                    .limitExceeded,
                    "\(items.count) dependencies are over the limit of \(ConfigLimits.maxDependencies) per service "
                        + "(ConfigLimits.maxDependencies); depend on a service that groups them",
                    at: path + ".dependsOn", node.position)
            } else {
                dependsOn = strings(node, at: path + ".dependsOn", what: "a list of service names") ?? []
            }
        }

        var options = ServiceOptions(baseDirectory: baseDirectory, pathRoots: pathRoots)
        if let node = fields["options"] {
            if case .object(let members) = node.value {
                reportDuplicateKeys(members, at: path + ".options")
                for member in members { options.values[member.key] = member.value.optionValue }
            } else {
                report(.wrongType, "must be an object, found \(node.typeName)", at: path + ".options", node.position)
            }
        }
        if let node = fields["secretOptions"],
            let secrets = strings(node, at: path + ".secretOptions", what: "a list of option names")
        {
            // Made on the first unknown name only; sorted, so that ties are decided the same every run.
            var suggestions: NameSuggestion.Index?
            for (index, secret) in secrets.enumerated() where options.values[secret] == nil {
                var message =
                    "secretOptions names '\(NameRules.visible(secret))', which is not an option of service '\(name)'"
                if suggestions == nil { suggestions = NameSuggestion.Index(options.values.keys.sorted()) }
                message += suggestions?.closest(to: secret).map { "; did you mean '\($0)'?" } ?? ""
                report(.invalidValue, message, at: path + ".secretOptions[\(index)]", nil)
            }
            options.secretKeys = Set(secrets)
        }

        var timeout: Duration?
        if let node = fields["timeoutMs"], let value = number(node, at: path + ".timeoutMs", limit: .timeout) {
            timeout = .milliseconds(value)
        }
        let retry = fields["retry"].map { decodeRetry($0, at: path + ".retry") } ?? RetryPolicy.none
        let failure = fields["failure"].flatMap { failureKind($0, at: path + ".failure") }
        // Scope names are checked against the declared `scopes` by the graph validator.
        let scope = fields["scope"].flatMap { identifier($0, at: path + ".scope", what: "scope name") }
        let group = fields["group"].flatMap { identifier($0, at: path + ".group", what: "group name") }

        guard let providerID else {
            // Keep the service in the graph so dependencies on it are not misreported.
            unresolved.insert(name)
            var spec = ServiceSpec(
                name: name, provider: UnresolvedProvider(), dependsOn: dependsOn, options: options,
                location: location)
            spec.lifetime = scope.map { .scope($0) } ?? .app
            spec.group = group
            return spec
        }
        var spec = ServiceSpec(
            name: name, provider: providerID, dependsOn: dependsOn, options: options, timeout: timeout, retry: retry,
            defaultFailure: failure, location: location)
        spec.lifetime = scope.map { .scope($0) } ?? .app
        spec.group = group
        return spec
    }

    private mutating func decodeRetry(_ node: JSONNode, at path: String) -> RetryPolicy {
        // Shorthand: "retry": 3 means three runs with no delay.
        if case .int = node.value {
            return attempts(node, at: path).map { RetryPolicy(maxAttempts: $0) } ?? .none
        }
        guard
            let fields = members(
                of: node, at: path, expected: "an object (or an integer: maxAttempts)",
                allowed: Self.retryKeys)
        else { return .none }
        var policy = RetryPolicy.none
        if let node = fields["maxAttempts"] {
            if let attempts = attempts(node, at: path + ".maxAttempts") { policy.maxAttempts = attempts }
        } else {
            report(.missingKey, "missing required key 'maxAttempts'", at: path, node.position)
        }
        if let node = fields["initialDelayMs"], let value = number(node, at: path + ".initialDelayMs", limit: .delay) {
            policy.initialDelay = .milliseconds(value)
        }
        if let node = fields["maxDelayMs"], let value = number(node, at: path + ".maxDelayMs", limit: .delay) {
            policy.maxDelay = .milliseconds(value)
        }
        if let node = fields["multiplier"], let value = number(node, at: path + ".multiplier", limit: .multiplier) {
            policy.multiplier = value
        }
        return policy
    }

    /// `maxAttempts`: an integer from 1 to ``ConfigLimits/maxRetryAttempts``.
    private mutating func attempts(_ node: JSONNode, at path: @autoclosure () -> String) -> Int? {
        guard case .int(let attempts) = node.value, attempts >= 1 else {
            report(
                node.isInt ? .invalidValue : .wrongType,
                "must be an integer of at least 1 (runs, the first included), found \(node.describedValue)",
                at: path(), node.position)
            return nil
        }
        guard attempts <= ConfigLimits.maxRetryAttempts else {
            report(
                .limitExceeded,
                "\(attempts) runs are over the limit of \(ConfigLimits.maxRetryAttempts) "
                    + "(ConfigLimits.maxRetryAttempts); use at most \(ConfigLimits.maxRetryAttempts), with a delay "
                    + "(initialDelayMs, multiplier) to wait out longer outages",
                at: path(), node.position)
            return nil
        }
        return attempts
    }

    private mutating func decodeEntryPoints(_ node: JSONNode?) -> ([any EntryPoint], [ServiceRequirement]) {
        guard let node, let ids = strings(node, at: "entryPoints", what: "a list of entry point ids"),
            case .array(let items) = node.value
        else {
            return ([], [])
        }
        var entryPoints: [any EntryPoint] = []
        var requirements: [ServiceRequirement] = []
        let known = registry.entryPoints.keys.sorted()
        guard ids.count <= ConfigLimits.maxEntryPoints else {
            report(
                .limitExceeded,
                "\(ids.count) entry points are over the limit of \(ConfigLimits.maxEntryPoints) "
                    + "(ConfigLimits.maxEntryPoints); list each entry point once",
                at: "entryPoints", node.position)
            return ([], [])
        }
        for (index, id) in ids.enumerated() {
            let path = "entryPoints[\(index)]"
            if let problem = NameRules.problem(with: id) {
                report(
                    .invalidName, "entry point id '\(NameRules.visible(id))' \(problem)", at: path,
                    items[index].position)
                continue
            }
            guard let entryPoint = registry.entryPoint(id) else {
                var message = "unknown entry point '\(id)'"
                message += NameSuggestion.hint(for: id, among: known)
                message +=
                    known.isEmpty
                    ? " (no entry points are registered)" : " (known entry points: \(known.joined(separator: ", ")))"
                report(.unknownEntryPoint, message, at: path, nil)
                continue
            }
            entryPoints.append(entryPoint)
            // The id's own node: the value the key path `entryPoints[index]` names.
            let position = items[index].position
            requirements.append(
                ServiceRequirement(
                    entryPoint,
                    location: ConfigLocation(
                        file: file, keyPath: path, line: position.line,
                        column: position.column)))
        }
        return (entryPoints, requirements)
    }

    // MARK: Graph issues

    private mutating func add(graphIssue issue: GraphError.Issue) {
        if let service = issue.service, unresolved.contains(service),
            issue.code == .typeMismatch || issue.code == .invalidOptions
        {
            return  // the service's provider is already reported as missing or malformed
        }
        var keyPath = issue.location?.keyPath ?? ""
        if issue.code == .invalidOptions, let option = Self.optionName(in: issue.message),
            root.node(at: keyPath + "." + option) != nil
        {
            // Point at the offending option itself, e.g. `services[3].options.outcomes[1]`.
            keyPath += "." + option
        }
        let position = position(of: keyPath)
        issues.append(
            ConfigError.Issue(
                code: ConfigError.Code(issue.code), message: issue.message,
                location: ConfigLocation(
                    file: file, keyPath: keyPath.isEmpty ? nil : keyPath, line: position.line,
                    column: position.column)))
    }

    /// The option an ``OptionError`` message names (`option 'outcomes[1]': ...`), if any.
    private static func optionName(in message: String) -> String? {
        guard let start = message.range(of: "option '") else { return nil }
        let rest = message[start.upperBound...]
        guard let end = rest.firstIndex(of: "'") else { return nil }
        return String(rest[..<end])
    }

    /// The position of `keyPath`, or of its nearest enclosing value that has one.
    func position(of keyPath: String) -> SourcePosition { root.position(of: keyPath) }
}

/// Stands in for a service whose `provider` key is missing or malformed, so that the rest of
/// the graph can still be validated; a config with such a service is never built.
private struct UnresolvedProvider: ServiceProvider {
    struct Unresolved: Sendable {}
    struct NotBuildable: Error {}
    let id = "<missing provider>"
    func make(_ context: ProviderContext) async throws -> Unresolved { throw NotBuildable() }
}
