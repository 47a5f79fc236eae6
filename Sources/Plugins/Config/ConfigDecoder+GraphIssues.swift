internal import Container

// Placing the graph validator's issues in the files. An issue is data: its location (the
// service's file and key path with the key it is about appended), its service and, for
// rejected options, the option. Nothing here reads the message.
extension ConfigDecoder {
    mutating func add(graphIssue issue: GraphError.Issue, redactor: Redactor) {
        if let service = issue.service, unresolved.contains(service),
            issue.code == .typeMismatch || issue.code == .invalidOptions
        {
            return  // the service's provider is already reported as missing or malformed
        }
        var (document, keyPath) = source(of: issue.location)
        let root = documents[document].root
        var position: SourcePosition?
        if issue.code == .invalidOptions, let option = issue.option {
            // Point at the offending option itself, e.g. `services[3].options.outcomes[1]`, when
            // the file has it (a missing option stays at `options`); a long name shown cut short.
            let optionPath = KeyPath.join(keyPath, "." + option)
            if let node = root.node(at: optionPath) {
                keyPath = KeyPath.join(keyPath, "." + NameRules.visible(redactor.redact(option)))
                position = node.position
            }
        }
        var message = issue.message
        if issue.code == .missingDependency, !removals.isEmpty,
            case .string(let name)? = root.node(at: keyPath)?.value, let removal = removals[name]
        {
            message += " (an overlay removes '\(name)' at \(place(of: removal)))"
        }
        report(
            .graph(issue.code), message, at: keyPath, in: document, position, service: issue.service,
            option: issue.option,
            underlying: issue.underlying.flatMap { Self.shown($0, redactor: redactor) })
    }

    /// The document and key path an issue's location names in the files: the scopes list and
    /// the keys of services are merged from the config and its overlays, so a location in the
    /// merged config is traced back to the file that wrote the value.
    private mutating func source(of location: ConfigLocation) -> (document: Int, keyPath: String) {
        let keyPath = location.keyPath ?? ""
        if let (index, rest) = Self.indexed(keyPath, in: "scopes"), scopeOrigins.indices.contains(index) {
            // The validator numbers the merged list of scope names.
            let origin = scopeOrigins[index]
            return (origin.document, KeyPath.join(origin.path, rest))
        }
        let document = location.file.flatMap { file in documents.firstIndex { $0.file == file } } ?? 0
        guard documents.count > 1, let (index, rest) = Self.indexed(keyPath, in: "services") else {
            return (document, keyPath)
        }
        guard let declaration = declaration(at: document, path: "services[\(index)]"), rest.hasPrefix(".") else {
            return (document, keyPath)
        }
        // `.dependsOn[0]`: the key `dependsOn` may come from an overlay.
        let key = rest.dropFirst().prefix { $0 != "." && $0 != "[" }
        guard let field = declaration.fields[String(key)] else { return (document, keyPath) }
        return (field.document, KeyPath.join(field.parent, rest))
    }

    /// The declaration whose object is at `path` of `document`.
    private mutating func declaration(at document: Int, path: String) -> ServiceDeclaration? {
        if originLookup == nil {
            var lookup: [String: Int] = [:]
            for (index, declaration) in declarations.enumerated() {
                guard let origin = declaration?.origin else { continue }
                lookup["\(origin.document) \(origin.path)"] = index
            }
            originLookup = lookup
        }
        return originLookup?["\(document) \(path)"].flatMap { declarations[$0] }
    }

    /// `("services[12].scope", in: "services")` is `(12, ".scope")`.
    private static func indexed(_ keyPath: String, in list: String) -> (Int, String)? {
        guard keyPath.hasPrefix(list + "[") else { return nil }
        let afterBracket = keyPath.dropFirst(list.count + 1)
        guard let close = afterBracket.firstIndex(of: "]"), let index = Int(afterBracket[..<close]) else { return nil }
        return (index, String(afterBracket[afterBracket.index(after: close)...]))
    }

    /// The underlying error, unless its text would show a secret of the config.
    private static func shown(_ error: any Error, redactor: Redactor) -> (any Error)? {
        let text = String(describing: error)
        return redactor.redact(text) == text ? error : nil
    }
}
