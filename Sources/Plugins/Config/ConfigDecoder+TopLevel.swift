internal import Container

// The top level of a config or an overlay: version, policy, scopes, entry points.
extension ConfigDecoder {
    mutating func checkVersion(_ field: Field?, root: Field) {
        let supported = ConfigSchema.supportedVersion
        guard let field else {
            report(
                .unsupportedVersion, "missing required key 'version'; add \"version\": \(supported)", at: "",
                in: root.document, root.node.position)
            return
        }
        guard case .int(let version) = field.node.value else {
            report(
                .wrongType, "must be an integer, found \(field.node.typeName); write \"version\": \(supported)",
                at: field.path, in: field.document, field.node.position)
            return
        }
        if version != supported {
            report(
                .unsupportedVersion,
                "config format version \(version) is not supported; this loader reads version \(supported)",
                at: field.path, in: field.document, field.node.position)
        }
    }

    /// An overlay may say `"overlay": true`; `false` would contradict how it is loaded.
    mutating func checkOverlayMarker(_ field: Field?) {
        guard let field, let marker = bool(field), !marker else { return }
        report(
            .invalidValue,
            "an overlay says \"overlay\": true or leaves the key out; a base config is given as --config, not "
                + "--overlay",
            at: field.path, in: field.document, field.node.position)
    }

    /// Applies one `policy` object on top of `policy`: the keys it gives replace those before.
    mutating func decodePolicy(_ field: Field, into policy: inout BuildPolicy, _ retryAfter: inout RetryAfter) {
        guard let fields = members(of: field, expected: "an object", allowed: ConfigSchema.policyKeys) else { return }
        if let field = fields["failFast"], let value = bool(field) {
            policy.failureMode = value ? .failFast : .continueIndependent
        }
        if let field = fields["unclassifiedFailure"], let kind = failureKind(field) {
            policy.classifier = kind == .permanent ? .permanentUnlessClassified : .default
        }
        // The attempt budget (the ConfigFormat article).
        if let field = fields["maxAttempts"], let attempts = read(field, { $0.policyAttempts(&$1) }) {
            policy.maxAttempts = attempts
        }
        var initialMs: Double?
        if let field = fields["retryAfterMs"], let value = number(field, limit: .delay) {
            retryAfter.initialMs = value
            initialMs = value
        }
        if let field = fields["retryAfterMaxMs"], let value = number(field, limit: .delay) {
            retryAfter.maxMs = value
            checkCap(value, of: field, above: initialMs, named: "retryAfterMs")
        }
    }

    /// Reports a longest delay (`maxMs`, at `field`) below the first one (`initialMs`, the key
    /// `initialKey` beside it), which would cut that first delay short without a word.
    mutating func checkCap(_ maxMs: Double, of field: Field, above initialMs: Double?, named initialKey: String) {
        guard let initialMs, maxMs < initialMs else { return }
        func shown(_ ms: Double) -> String { ms == ms.rounded() ? String(Int(ms)) : String(ms) }
        report(
            .invalidValue,
            "is \(shown(maxMs)) ms, less than \(initialKey) (\(shown(initialMs)) ms), which it would cut short; "
                + "raise it to at least \(shown(initialMs)), or lower \(initialKey)",
            at: field.path, in: field.document, field.node.position)
    }

    /// Adds the scopes of one `scopes` list: names (top-level scopes) or objects with a `name`
    /// and a `parent`. A scope already declared is kept once; an overlay may give it a parent.
    mutating func decodeScopes(_ field: Field, into scopes: inout [ServiceGraph.Scope]) {
        guard field.node.isArray else {
            report(
                .wrongType, "must be a list of scopes: names, or {\"name\": ..., \"parent\": ...} objects",
                at: field.path, in: field.document, field.node.position)
            return
        }
        let items = field.node.elements
        guard scopes.count + items.count <= ConfigLimits.maxScopes else {
            report(
                .limitExceeded,
                "\(scopes.count + items.count) scopes are over the limit of \(ConfigLimits.maxScopes); "
                    + "declare fewer scopes",
                at: field.path, in: field.document, field.node.position)
            return
        }
        for (index, item) in items.enumerated() {
            let element = field.child(item, key: "[\(index)]")
            guard let scope = decodeScope(element) else { continue }
            // An overlay declaring a scope the config has is harmless (with a parent, it nests
            // it); the validator reports a name repeated inside one list.
            if field.document > 0, let existing = scopes.firstIndex(where: { $0.name == scope.name }) {
                if scope.parent != nil {
                    scopes[existing].parent = scope.parent
                    scopeOrigins[existing] = element
                }
                continue
            }
            scopes.append(scope)
            scopeOrigins.append(element)
        }
    }

    /// One element of a `scopes` list.
    private mutating func decodeScope(_ element: Field) -> ServiceGraph.Scope? {
        if case .string(let name) = element.node.value { return ServiceGraph.Scope(name) }
        guard
            let fields = members(
                of: element, expected: "a scope name or an object with \"name\" and \"parent\"",
                allowed: ConfigSchema.scopeKeys)
        else { return nil }
        guard let nameField = fields["name"] else {
            report(
                .missingKey, "missing required key 'name'; add \"name\": \"scene\"", at: element.path,
                in: element.document, element.node.position)
            return nil
        }
        guard let name = string(nameField) else { return nil }
        var parent: String?
        if let parentField = fields["parent"] {
            guard let value = string(parentField) else { return nil }
            parent = value
        }
        return ServiceGraph.Scope(name, parent: parent)
    }

    mutating func decodeEntryPoints(_ field: Field) -> ([any EntryPoint], [ServiceGraph.Requirement]) {
        guard let ids = strings(field, what: "a list of entry point ids") else { return ([], []) }
        let items = field.node.elements
        var entryPoints: [any EntryPoint] = []
        var requirements: [ServiceGraph.Requirement] = []
        let known = registry.entryPoints.keys.sorted()
        guard ids.count <= ConfigLimits.maxEntryPoints else {
            report(
                .limitExceeded,
                "\(ids.count) entry points are over the limit of \(ConfigLimits.maxEntryPoints) "
                    + "(ConfigLimits.maxEntryPoints); list each entry point once",
                at: field.path, in: field.document, field.node.position)
            return ([], [])
        }
        let file = documents[field.document].file
        var firstIndex: [String: Int] = [:]
        for (index, id) in ids.enumerated() {
            let path = field.path + "[\(index)]"
            // Each entry point is one caller of the run, named by its id: twice is a mistake.
            if let first = firstIndex[id] {
                report(
                    .invalidValue,
                    "entry point '\(NameRules.visible(id))' is listed twice (first at \(field.path)[\(first)]); "
                        + "list each entry point once",
                    at: path, in: field.document, items[index].position)
                continue
            }
            firstIndex[id] = index
            if let problem = NameRules.problem(with: id) {
                report(
                    .invalidName, "entry point id '\(NameRules.visible(id))' \(problem)", at: path, in: field.document,
                    items[index].position)
                continue
            }
            guard let entryPoint = registry.entryPoint(id) else {
                var message = "unknown entry point '\(NameRules.visible(id))'"
                message += NameSuggestion.hint(for: id, among: known)
                message +=
                    known.isEmpty
                    ? " (the registry holds no entry points: register the app's own with register(entryPoint:) and "
                        + "load the config with that registry)"
                    : " (known entry points: \(known.joined(separator: ", ")))"
                report(.unknownEntryPoint, message, at: path, in: field.document, nil)
                continue
            }
            entryPoints.append(entryPoint)
            // The id's own node: the value the key path `entryPoints[index]` names.
            let position = items[index].position
            requirements.append(
                ServiceGraph.Requirement(
                    entryPoint,
                    location: ConfigLocation(file: file, keyPath: path, line: position.line, column: position.column)))
        }
        return (entryPoints, requirements)
    }
}

/// `policy.retryAfterMs` and `policy.retryAfterMaxMs`, as the files give them (an overlay may
/// give one and leave the other to the config).
struct RetryAfter {
    var initialMs: Double?
    var maxMs: Double?

    /// The longest delay when only `retryAfterMs` is given: RetryPolicy.Backoff's default, 30 s.
    static let defaultMaxMs = 30_000.0

    /// The delay before the second attempt is `retryAfterMs`, doubling after each failed
    /// attempt up to `retryAfterMaxMs` (default 30 s, or `retryAfterMs` when that is longer).
    var backoff: RetryPolicy.Backoff {
        guard let initialMs, initialMs > 0 else { return .none }
        return RetryPolicy.Backoff(
            initialDelay: .milliseconds(initialMs), multiplier: 2,
            maxDelay: .milliseconds(maxMs ?? max(initialMs, Self.defaultMaxMs)))
    }
}
