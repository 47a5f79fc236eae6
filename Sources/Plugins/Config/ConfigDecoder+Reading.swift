internal import Container

// Reading typed values out of the parsed file, reporting every problem with its key path and
// position. The readers take their key path as an autoclosure: it is built only for a message,
// not for every value of a valid file.
extension ConfigDecoder {
    mutating func report(
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
    mutating func members(
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
                // A key of the input may be long or hold control characters: quote it shortened.
                let key = NameRules.visible(member.key)
                let memberPath = path.isEmpty ? key : path + "." + key
                var message = "unknown key '\(key)'"
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

    mutating func reportDuplicateKeys(_ members: [JSONNode.Member], at path: @autoclosure () -> String) {
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

    mutating func reportDuplicate(_ member: JSONNode.Member, first: SourcePosition, at path: String) {
        let key = NameRules.visible(member.key)
        let memberPath = path.isEmpty ? key : path + "." + key
        report(
            .duplicateKey,
            "key '\(key)' appears twice in this object (first at line \(first.line)); remove one",
            at: memberPath, member.keyPosition)
    }

    // The typed readers take their key path as an autoclosure: it is built only for a message,
    // not for every value of a valid file.

    mutating func string(_ node: JSONNode, at path: @autoclosure () -> String) -> String? {
        guard case .string(let value) = node.value else {
            report(.wrongType, "must be a string, found \(node.typeName)", at: path(), node.position)
            return nil
        }
        return value
    }

    mutating func bool(_ node: JSONNode, at path: @autoclosure () -> String) -> Bool? {
        guard case .bool(let value) = node.value else {
            report(.wrongType, "must be true or false, found \(node.typeName)", at: path(), node.position)
            return nil
        }
        return value
    }

    mutating func strings(_ node: JSONNode, at path: @autoclosure () -> String, what: String) -> [String]? {
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

    /// A number (integer or not), finite and within `limit`'s bounds.
    mutating func number(
        _ node: JSONNode, at path: @autoclosure () -> String, limit: NumberLimit
    ) -> Double? {
        let number: Double
        switch node.value {
        case .int(let value): number = Double(value)
        case .double(let value): number = value
        default:
            report(.wrongType, "must be a number, found \(node.typeName)", at: path(), node.position)
            return nil
        }
        guard limit.minimumIncluded ? number >= limit.minimum : number > limit.minimum else {
            report(.invalidValue, limit.belowMinimum, at: path(), node.position)
            return nil
        }
        guard number.isFinite, number <= limit.maximum else {
            report(
                .limitExceeded,
                "\(node.describedValue) is over the limit of \(limit.maximumText) (\(limit.name)); \(limit.fix)",
                at: path(), node.position)
            return nil
        }
        return number
    }

    /// A name (a provider id): a string that follows ``Container/NameRules``.
    mutating func identifier(_ node: JSONNode, at path: @autoclosure () -> String, what: String) -> String? {
        guard let value = string(node, at: path()) else { return nil }
        if let problem = NameRules.problem(with: value) {
            report(.invalidName, "\(what) '\(NameRules.visible(value))' \(problem)", at: path(), node.position)
            return nil
        }
        return value
    }

    mutating func failureKind(_ node: JSONNode, at path: @autoclosure () -> String) -> FailureKind? {
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
struct Fields {
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
    var isInt: Bool {
        if case .int = value { return true }
        return false
    }

    /// The value for a message: the number itself, or its type.
    var describedValue: String {
        switch value {
        case .int(let value): String(value)
        case .double(let value): String(value)
        default: typeName
        }
    }
}

/// The bounds of one number of the format, with the words its messages use.
struct NumberLimit {
    /// The smallest value, and whether it is allowed itself.
    let minimum: Double
    let minimumIncluded: Bool
    /// The message for a value below it.
    let belowMinimum: String
    let maximum: Double
    let maximumText: String
    /// The ``ConfigLimits`` member that documents it.
    let name: String
    /// How to get under it.
    let fix: String

    /// `timeoutMs`.
    static let timeout = NumberLimit(
        minimum: 0, minimumIncluded: false,
        belowMinimum: "must be greater than 0 (milliseconds); remove it for no timeout",
        maximum: Double(ConfigLimits.maxTimeoutMs), maximumText: "\(ConfigLimits.maxTimeoutMs) ms, one hour",
        name: "ConfigLimits.maxTimeoutMs",
        fix: "a node that may take longer should not block start-up; remove timeoutMs for no timeout")
    /// `retry.initialDelayMs` and `retry.maxDelayMs`.
    static let delay = NumberLimit(
        minimum: 0, minimumIncluded: true, belowMinimum: "must not be negative",
        maximum: Double(ConfigLimits.maxRetryDelayMs), maximumText: "\(ConfigLimits.maxRetryDelayMs) ms, one day",
        name: "ConfigLimits.maxRetryDelayMs", fix: "use a shorter delay")
    /// `retry.multiplier`.
    static let multiplier = NumberLimit(
        minimum: 1, minimumIncluded: true, belowMinimum: "must be at least 1",
        maximum: Double(ConfigLimits.maxRetryMultiplier), maximumText: "\(ConfigLimits.maxRetryMultiplier)",
        name: "ConfigLimits.maxRetryMultiplier", fix: "maxDelayMs caps the delay anyway; use a smaller factor")
}
