internal import Container
internal import Foundation

/// Turns a parsed config file into specs, a policy and entry points, collecting every
/// problem with its position, then runs the core graph validator and merges its issues.
struct ConfigDecoder {
    static let supportedVersion = 1
    static let topLevelKeys = ["version", "description", "policy", "services", "entryPoints"]
    static let policyKeys = ["failFast", "unclassifiedFailure"]
    static let serviceKeys = [
        "name", "provider", "dependsOn", "options", "secretOptions", "timeoutMs", "retry", "failure", "description",
    ]
    static let retryKeys = ["maxAttempts", "initialDelayMs", "multiplier", "maxDelayMs"]

    let file: String
    let baseDirectory: String
    let registry: ProviderRegistry
    let root: JSONNode
    /// Folders the app names for `$root/...` path options (``ServiceOptions/pathRoots``).
    var pathRoots: [String: String] = [:]
    /// The position of every value in the file, by key path. Only messages need it, so it is
    /// built on the first problem reported: a valid file never pays for a key path per value.
    private lazy var positions: [String: SourcePosition] = {
        var positions: [String: SourcePosition] = [:]
        root.forEach(path: "") { path, node in
            if positions[path] == nil { positions[path] = node.position }
        }
        return positions
    }()
    private var issues: [ConfigError.Issue] = []
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
        var specs: [ServiceSpec] = []
        if let services = top["services"] {
            if case .array(let items) = services.value {
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
            graph = try ServiceGraph(specs, registry: registry, requirements: requirements)
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
            ConfigError.Issue(
                code: $0.element.code, message: redactor.redact($0.element.message),
                location: $0.element.location)
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
            providerID = string(providerNode, at: path + ".provider")
        } else {
            let known = registry.providers.keys.sorted().joined(separator: ", ")
            report(
                .missingKey, "missing required key 'provider' in service '\(name)'; known providers: \(known)",
                at: path, node.position)
        }

        var dependsOn: [String] = []
        if let node = fields["dependsOn"] {
            dependsOn = strings(node, at: path + ".dependsOn", what: "a list of service names") ?? []
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
            for (index, secret) in secrets.enumerated() where options.values[secret] == nil {
                var message = "secretOptions names '\(secret)', which is not an option of service '\(name)'"
                message += NameSuggestion.hint(for: secret, among: options.values.keys)
                report(.invalidValue, message, at: path + ".secretOptions[\(index)]", nil)
            }
            options.secretKeys = Set(secrets)
        }

        var timeout: Duration?
        if let node = fields["timeoutMs"], let value = milliseconds(node, at: path + ".timeoutMs") {
            if value > 0 {
                timeout = .milliseconds(value)
            } else {
                report(
                    .invalidValue, "must be greater than 0 (milliseconds); remove it for no timeout",
                    at: path + ".timeoutMs", node.position)
            }
        }
        let retry = fields["retry"].map { decodeRetry($0, at: path + ".retry") } ?? RetryPolicy.none
        let failure = fields["failure"].flatMap { failureKind($0, at: path + ".failure") }

        guard let providerID else {
            // Keep the service in the graph so dependencies on it are not misreported.
            unresolved.insert(name)
            return ServiceSpec(
                name: name, provider: UnresolvedProvider(), dependsOn: dependsOn, options: options,
                location: location)
        }
        return ServiceSpec(
            name: name, provider: providerID, dependsOn: dependsOn, options: options, timeout: timeout, retry: retry,
            defaultFailure: failure, location: location)
    }

    private mutating func decodeRetry(_ node: JSONNode, at path: String) -> RetryPolicy {
        // Shorthand: "retry": 3 means three runs with no delay.
        if case .int(let attempts) = node.value {
            guard attempts >= 1 else {
                report(
                    .invalidValue, "must be at least 1 (the number of runs, the first included)", at: path,
                    node.position)
                return .none
            }
            return RetryPolicy(maxAttempts: attempts)
        }
        guard
            let fields = members(
                of: node, at: path, expected: "an object (or an integer: maxAttempts)",
                allowed: Self.retryKeys)
        else { return .none }
        var policy = RetryPolicy.none
        if let node = fields["maxAttempts"] {
            if case .int(let attempts) = node.value, attempts >= 1 {
                policy.maxAttempts = attempts
            } else {
                report(
                    node.isInt ? .invalidValue : .wrongType,
                    "must be an integer of at least 1 (runs, the first included), found \(node.describedValue)",
                    at: path + ".maxAttempts", node.position)
            }
        } else {
            report(.missingKey, "missing required key 'maxAttempts'", at: path, node.position)
        }
        if let node = fields["initialDelayMs"], let value = nonNegative(node, at: path + ".initialDelayMs") {
            policy.initialDelay = .milliseconds(value)
        }
        if let node = fields["maxDelayMs"], let value = nonNegative(node, at: path + ".maxDelayMs") {
            policy.maxDelay = .milliseconds(value)
        }
        if let node = fields["multiplier"], let value = milliseconds(node, at: path + ".multiplier") {
            if value >= 1 {
                policy.multiplier = value
            } else {
                report(.invalidValue, "must be at least 1", at: path + ".multiplier", node.position)
            }
        }
        return policy
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
        for (index, id) in ids.enumerated() {
            let path = "entryPoints[\(index)]"
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
            positions[keyPath + "." + option] != nil
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
    private mutating func position(of keyPath: String) -> SourcePosition {
        var path = Substring(keyPath)
        while !path.isEmpty {
            if let position = positions[String(path)] { return position }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            path = path[..<cut]
        }
        return positions[""] ?? .start
    }

    // MARK: Typed reading

    private mutating func report(
        _ code: ConfigError.Code, _ message: String, at keyPath: String, _ position: SourcePosition?
    ) {
        let position = position ?? self.position(of: keyPath)
        issues.append(
            ConfigError.Issue(
                code: code, message: message,
                location: ConfigLocation(
                    file: file, keyPath: keyPath.isEmpty ? nil : keyPath, line: position.line,
                    column: position.column)))
    }

    /// The first value of each allowed key of an object; reports unknown and duplicate keys.
    private mutating func members(
        of node: JSONNode, at path: String, expected: String, allowed: [String]
    ) -> Fields? {
        guard case .object(let members) = node.value else {
            report(.wrongType, "must be \(expected), found \(node.typeName)", at: path, node.position)
            return nil
        }
        reportDuplicateKeys(members, at: path)
        var result = Fields(allowed: allowed)
        for member in members {
            guard let slot = allowed.firstIndex(of: member.key) else {
                let memberPath = path.isEmpty ? member.key : path + "." + member.key
                var message = "unknown key '\(member.key)'"
                if let suggestion = NameSuggestion.closest(to: member.key, among: allowed) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += "; the keys allowed here are: \(allowed.joined(separator: ", "))"
                }
                report(.unknownKey, message, at: memberPath, member.keyPosition)
                continue
            }
            if result.values[slot] == nil { result.values[slot] = member.value }
        }
        return result
    }

    private mutating func reportDuplicateKeys(_ members: [JSONNode.Member], at path: @autoclosure () -> String) {
        // Objects in a config have a handful of keys: comparing each key with the earlier ones
        // is cheaper than hashing them all into a dictionary, and finds the same first occurrence.
        guard members.count > 16 else {
            for (index, member) in members.enumerated() {
                guard let first = members[..<index].first(where: { $0.key == member.key }) else { continue }
                reportDuplicate(member, first: first.keyPosition, at: path())
            }
            return
        }
        var seen: [String: SourcePosition] = [:]
        for member in members {
            if let first = seen[member.key] {
                reportDuplicate(member, first: first, at: path())
            } else {
                seen[member.key] = member.keyPosition
            }
        }
    }

    private mutating func reportDuplicate(_ member: JSONNode.Member, first: SourcePosition, at path: String) {
        let memberPath = path.isEmpty ? member.key : path + "." + member.key
        report(
            .duplicateKey,
            "key '\(member.key)' appears twice in this object (first at line \(first.line)); remove one",
            at: memberPath, member.keyPosition)
    }

    // The typed readers take their key path as an autoclosure: it is built only for a message,
    // not for every value of a valid file.

    private mutating func string(_ node: JSONNode, at path: @autoclosure () -> String) -> String? {
        guard case .string(let value) = node.value else {
            report(.wrongType, "must be a string, found \(node.typeName)", at: path(), node.position)
            return nil
        }
        return value
    }

    private mutating func bool(_ node: JSONNode, at path: @autoclosure () -> String) -> Bool? {
        guard case .bool(let value) = node.value else {
            report(.wrongType, "must be true or false, found \(node.typeName)", at: path(), node.position)
            return nil
        }
        return value
    }

    private mutating func strings(_ node: JSONNode, at path: @autoclosure () -> String, what: String) -> [String]? {
        guard case .array(let items) = node.value else {
            var message = "must be \(what) (an array of strings), found \(node.typeName)"
            if case .string(let single) = node.value { message += "; write [\"\(single)\"]" }
            report(.wrongType, message, at: path(), node.position)
            return nil
        }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let value = string(item, at: path() + "[\(index)]") { result.append(value) }
        }
        return result.count == items.count ? result : nil
    }

    /// The largest duration or factor a config may give (about 31 years in milliseconds): larger
    /// values are mistakes, and could not be represented as a `Duration`.
    static let largestNumber = 1e12

    /// A number (integer or not), finite and at most ``largestNumber`` in size.
    private mutating func milliseconds(_ node: JSONNode, at path: @autoclosure () -> String) -> Double? {
        let number: Double
        switch node.value {
        case .int(let value): number = Double(value)
        case .double(let value): number = value
        default:
            report(.wrongType, "must be a number, found \(node.typeName)", at: path(), node.position)
            return nil
        }
        guard number.isFinite, abs(number) <= Self.largestNumber else {
            report(
                .invalidValue, "must be at most 1000000000000, found \(node.describedValue)", at: path(), node.position)
            return nil
        }
        return number
    }

    private mutating func nonNegative(_ node: JSONNode, at path: @autoclosure () -> String) -> Double? {
        guard let value = milliseconds(node, at: path()) else { return nil }
        guard value >= 0 else {
            report(.invalidValue, "must not be negative", at: path(), node.position)
            return nil
        }
        return value
    }

    private mutating func failureKind(_ node: JSONNode, at path: @autoclosure () -> String) -> FailureKind? {
        guard let word = string(node, at: path()) else { return nil }
        if let kind = FailureKind(rawValue: word) { return kind }
        var message = "unknown failure kind '\(word)'"
        if let suggestion = NameSuggestion.closest(to: word, among: ["transient", "permanent"]) {
            message += "; did you mean '\(suggestion)'?"
        } else {
            message += "; use \"transient\" or \"permanent\""
        }
        report(.invalidValue, message, at: path(), node.position)
        return nil
    }
}

/// The first value of each allowed key of one object, stored by the key's index in the
/// allowed list: a few string compares instead of a dictionary per object.
private struct Fields {
    let allowed: [String]
    var values: [JSONNode?]

    init(allowed: [String]) {
        self.allowed = allowed
        self.values = Array(repeating: nil, count: allowed.count)
    }

    subscript(key: String) -> JSONNode? {
        guard let slot = allowed.firstIndex(of: key) else { return nil }
        return values[slot]
    }
}

extension JSONNode {
    fileprivate var isInt: Bool {
        if case .int = value { return true }
        return false
    }

    /// The value for a message: the number itself, or its type.
    fileprivate var describedValue: String {
        if case .int(let value) = value { return String(value) }
        return typeName
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
