internal import Container

// Placing problems: every reader's problem gets the file, key path and position of the value
// it is about.
extension ConfigDecoder {
    /// Records a problem at `keyPath` of document `document`; without a `position`, the one of
    /// the value at the key path (or of its deepest enclosing value).
    mutating func report(
        _ code: ConfigError.Code, _ message: String, at keyPath: String, in document: Int, _ position: SourcePosition?,
        service: String? = nil, option: String? = nil, underlying: (any Error)? = nil
    ) {
        let position = position ?? documents[document].root.position(of: keyPath)
        issues.append(
            (
                document,
                ConfigError.Issue(
                    code: code, message: message, service: service,
                    location: ConfigLocation(
                        file: documents[document].file, keyPath: keyPath.isEmpty ? nil : keyPath, line: position.line,
                        column: position.column),
                    option: option, underlying: underlying)
            ))
    }

    /// Runs a typed reader on `field` and reports what it found wrong.
    mutating func read<Value>(_ field: Field, _ reader: (PositionedValue, inout [ReadProblem]) -> Value?) -> Value? {
        var problems: [ReadProblem] = []
        let value = reader(field.node, &problems)
        if !problems.isEmpty {
            let path = field.path
            for problem in problems {
                report(
                    problem.code, problem.message, at: KeyPath.join(path, problem.subpath), in: field.document,
                    problem.position)
            }
        }
        return value
    }

    /// The allowed keys of an object; reports unknown and duplicate keys.
    mutating func members(
        of field: Field, expected: String, allowed: [String], misplaced: [String: String] = [:]
    ) -> Fields? {
        guard
            let values = read(field, { $0.members(allowed: allowed, expected: expected, misplaced: misplaced, &$1) })
        else { return nil }
        let parent = field.path
        var fields = Fields(allowed: allowed, values: [])
        fields.values.reserveCapacity(allowed.count)
        for (slot, node) in values.enumerated() {
            fields.values.append(
                node.map { Field(node: $0, document: field.document, parent: parent, key: allowed[slot]) })
        }
        // A note is ignored, but only as text: `"description": 5` is a mistake like any other type.
        if let note = fields["description"] { _ = string(note) }
        return fields
    }

    mutating func string(_ field: Field) -> String? { read(field) { $0.string(&$1) } }

    mutating func bool(_ field: Field) -> Bool? { read(field) { $0.bool(&$1) } }

    mutating func strings(_ field: Field, what: String) -> [String]? { read(field) { $0.strings(what: what, &$1) } }

    mutating func number(_ field: Field, limit: NumberLimit) -> Double? { read(field) { $0.number(limit: limit, &$1) } }

    mutating func identifier(_ field: Field, what: String) -> String? {
        read(field) { $0.identifier(what: what, &$1) }
    }

    mutating func failureKind(_ field: Field) -> FailureKind? { read(field) { $0.failureKind(&$1) } }
    mutating func startPolicy(_ field: Field) -> StartPolicy? { read(field) { $0.startPolicy(&$1) } }
    mutating func isolation(_ field: Field) -> ServiceSpec.Isolation? { read(field) { $0.isolation(&$1) } }
    mutating func priority(_ field: Field) -> ServicePriority? { read(field) { $0.priority(&$1) } }
}
