internal import Container

/// Turns a parsed config file and its overlays into specs, a policy and entry points,
/// collecting every problem with its file and position; then runs the core graph validator and
/// places its issues in the files (`ConfigDecoder+GraphIssues.swift`).
///
/// The steps, one file each: the format's keys and bounds (`ConfigSchema.swift`), typed
/// readers (`PositionedValue+Reading.swift`), the top level (`+TopLevel`), services (`+Services`),
/// overlays (`+Overlays`) and graph issues (`+GraphIssues`).
struct ConfigDecoder {
    /// The base config (0), then the overlays in the order they apply.
    let documents: [ConfigDocument]
    let registry: ProviderRegistry
    /// Folders the app names for `$root/...` path options (``ServiceOptions/pathRoots``).
    var pathRoots: [String: String] = [:]
    /// Every problem found, with the document it is in (for ordering).
    var issues: [(document: Int, issue: ConfigError.Issue)] = []
    /// Services whose provider could not be read: graph issues about their type are noise.
    var unresolved = Set<String>()
    /// The services in declaration order, as the base declares them and the overlays change
    /// them; `nil` where an overlay removed one.
    var declarations: [ServiceDeclaration?] = []
    /// The position in ``declarations`` of each declared name (the first, for duplicates).
    var declarationIndex: [String: Int] = [:]
    /// Services an overlay removed, with the `remove` key that did: to explain a dependency on one.
    var removals: [String: Field] = [:]
    /// Where each scope of the merged `scopes` list was written.
    var scopeOrigins: [Field] = []
    /// ``declarations`` by their object's document and key path; made for the first graph issue
    /// of a config with overlays.
    var originLookup: [String: Int]?

    init(documents: [ConfigDocument], registry: ProviderRegistry) {
        self.documents = documents
        self.registry = registry
    }

    // MARK: Loading

    mutating func load() throws(ConfigError) -> ContainerConfig {
        var tops: [(document: Int, fields: Fields)] = []
        for (index, document) in documents.enumerated() {
            let allowed = document.isOverlay ? ConfigSchema.overlayKeys : ConfigSchema.topLevelKeys
            let expected =
                document.isOverlay
                ? "an object with \"version\" (an overlay)" : "an object with \"version\" and \"services\""
            let root = Field(node: document.root, document: index, parent: "", key: "")
            let misplaced = document.isOverlay ? [:] : ConfigSchema.overlayOnlyKeys
            guard let top = members(of: root, expected: expected, allowed: allowed, misplaced: misplaced) else {
                // Nothing else of a file that is not an object can be read.
                if index == 0 { throw error() }
                continue
            }
            checkVersion(top["version"], root: root)
            if document.isOverlay { checkOverlayMarker(top["overlay"]) }
            tops.append((index, top))
        }

        var policy = BuildPolicy.default
        var retryAfter = RetryAfter()
        for top in tops {
            if let field = top.fields["policy"] { decodePolicy(field, into: &policy, &retryAfter) }
        }
        policy.retryAfter = retryAfter.backoff

        var scopes: [ServiceGraph.Scope] = []
        for top in tops { if let field = top.fields["scopes"] { decodeScopes(field, into: &scopes) } }

        if let services = tops[0].fields["services"] {
            // A list past its limit is not read further: validating it is the cost the limit avoids.
            guard declareServices(services) else { throw error() }
        } else {
            report(
                .missingKey, "missing required key 'services'; add \"services\": [ ... ]", at: "", in: 0,
                documents[0].root.position)
        }
        for top in tops.dropFirst() {
            if let services = top.fields["services"] { guard applyOverlay(services) else { throw error() } }
        }

        // The last file that lists entry points decides them.
        let entryPointsField = tops.last { $0.fields["entryPoints"] != nil }?.fields["entryPoints"]
        let (entryPoints, requirements) = entryPointsField.map { decodeEntryPoints($0) } ?? ([], [])

        var specs: [ServiceSpec] = []
        specs.reserveCapacity(declarations.count)
        for declaration in declarations {
            if let declaration { specs.append(decodeService(declaration)) }
        }

        if let limit = ServiceGraph.secretLimitIssue(specs) {
            // Too much secret text to redact the other messages at a bounded cost: this one alone
            // (it quotes no secret).
            issues.removeAll()
            add(graphIssue: limit, redactor: Redactor())
            throw error()
        }
        let graph: ServiceGraph
        do {
            graph = try ServiceGraph(specs, registry: registry, requirements: requirements, scopes: scopes)
        } catch {
            // The secrets the graph would have had: one redactor for its issues and every message.
            let redactor = Redactor(secrets: specs.flatMap(\.options.secretStrings))
            for issue in error.issues { add(graphIssue: issue, redactor: redactor) }
            throw self.error(redactor: redactor)
        }
        guard issues.isEmpty else { throw self.error(redactor: graph.redactor) }
        return ContainerConfig(
            file: documents[0].file, specs: specs, policy: policy, entryPoints: entryPoints, graph: graph,
            overlays: documents.dropFirst().map(\.file))
    }

    /// Every issue, in file order (the base, then each overlay) and by position in each file.
    /// Secret option values never appear in it, even where a provider quoted one: `redactor`
    /// hides them (`nil` before any service was read: none is known).
    func error(redactor: Redactor? = nil) -> ConfigError {
        let sorted = issues.enumerated().sorted { lhs, rhs in
            if lhs.element.document != rhs.element.document { return lhs.element.document < rhs.element.document }
            let left = lhs.element.issue.location
            let right = rhs.element.issue.location
            let leftPosition = SourcePosition(line: left.line ?? 1, column: left.column ?? 1)
            let rightPosition = SourcePosition(line: right.line ?? 1, column: right.column ?? 1)
            return leftPosition == rightPosition ? lhs.offset < rhs.offset : leftPosition < rightPosition
        }.map {
            // Control characters of the input are shown as escapes: they could rewrite a terminal.
            let issue = $0.element.issue
            var location = issue.location
            location.keyPath = location.keyPath.map(NameRules.escapingControlCharacters)
            let message = redactor.map { $0.redact(issue.message) } ?? issue.message
            return ConfigError.Issue(
                code: issue.code, message: NameRules.escapingControlCharacters(message),
                service: issue.service, location: location, option: issue.option, underlying: issue.underlying)
        }
        return ConfigError(file: documents[0].file, issues: sorted)
    }
}
