internal import Container

/// A problem met reading one value of a file: the decoder places it (file, key path, position).
struct ReadProblem {
    let code: ConfigError.Code
    let message: String
    /// Appended to the key path of the value read: `""` for the value itself, `[2]` for an
    /// element, `.dependOn` for a member.
    var subpath = ""
    /// Where it is; `nil`: found by walking the key path.
    var position: SourcePosition?
}

// Typed readers: each returns the value, or `nil` after appending what is wrong with it to
// `problems`. They know nothing of files or key paths, so the base config and its overlays
// share them.
extension PositionedValue {
    /// The first value of each `allowed` key of an object, by the key's index in `allowed`;
    /// reports unknown keys (with a "did you mean") and duplicate keys. `misplaced` holds keys
    /// that belong elsewhere (an overlay's `add` in a config), with what to say about them.
    func members(
        allowed: [String], expected: String, misplaced: [String: String] = [:], _ problems: inout [ReadProblem]
    ) -> [PositionedValue?]? {
        guard isObject else {
            problems.append(
                ReadProblem(code: .wrongType, message: "must be \(expected), found \(typeName)", position: position))
            return nil
        }
        Self.duplicateKeys(members, &problems)
        var result = [PositionedValue?](repeating: nil, count: allowed.count)
        for member in members {
            guard let slot = allowed.slot(of: member.key) else {
                // A key of the input may be long or hold control characters: quote it shortened.
                let key = NameRules.visible(member.key)
                var message = "unknown key '\(key)'"
                if let explanation = misplaced[member.key] {
                    message += ": " + explanation
                } else if let suggestion = NameSuggestion.closest(to: member.key, among: allowed) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += "; the keys allowed here are: \(allowed.joined(separator: ", "))"
                }
                problems.append(
                    ReadProblem(code: .unknownKey, message: message, subpath: "." + key, position: member.keyPosition))
                continue
            }
            if result[slot] == nil { result[slot] = member.value }
        }
        return result
    }

    /// Reports every key that appears twice among `members`, at its second occurrence.
    static func duplicateKeys(_ members: [Member], _ problems: inout [ReadProblem]) {
        // Objects in a config have a handful of keys: comparing each key with the earlier ones
        // is cheaper than hashing them all into a dictionary, and finds the same first occurrence.
        guard members.count > 16 else {
            for (index, member) in members.enumerated() {
                guard let first = members[..<index].first(where: { $0.key == member.key }) else { continue }
                problems.append(duplicate(member, first: first.keyPosition))
            }
            return
        }
        var seen: [String: SourcePosition] = [:]
        for member in members {
            if let first = seen[member.key] {
                problems.append(duplicate(member, first: first))
            } else {
                seen[member.key] = member.keyPosition
            }
        }
    }

    private static func duplicate(_ member: Member, first: SourcePosition) -> ReadProblem {
        let key = NameRules.visible(member.key)
        return ReadProblem(
            code: .duplicateKey,
            message: "key '\(key)' appears twice in this object (first at line \(first.line)); remove one",
            subpath: "." + key, position: member.keyPosition)
    }

    func string(_ problems: inout [ReadProblem]) -> String? {
        guard case .string(let value) = value else {
            problems.append(wrongType("must be a string"))
            return nil
        }
        return value
    }

    func bool(_ problems: inout [ReadProblem]) -> Bool? {
        guard case .bool(let value) = value else {
            problems.append(wrongType("must be true or false"))
            return nil
        }
        return value
    }

    /// A list of strings; `what` names it in a message (`a list of service names`).
    func strings(what: String, _ problems: inout [ReadProblem]) -> [String]? {
        guard isArray else {
            var message = "must be \(what) (an array of strings), found \(typeName)"
            if case .string(let single) = value { message += "; write [\"\(NameRules.visible(single))\"]" }
            problems.append(ReadProblem(code: .wrongType, message: message, position: position))
            return nil
        }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for (index, item) in elements.enumerated() {
            if case .string(let value) = item.value {
                result.append(value)
            } else {
                var problem = item.wrongType("must be a string")
                problem.subpath = "[\(index)]"
                problems.append(problem)
            }
        }
        return result.count == elements.count ? result : nil
    }

    /// A number (integer or not), finite and within `limit`'s bounds.
    func number(limit: NumberLimit, _ problems: inout [ReadProblem]) -> Double? {
        let number: Double
        switch value {
        case .int(let value): number = Double(value)
        case .double(let value): number = value
        default:
            problems.append(wrongType("must be a number"))
            return nil
        }
        guard limit.minimumIncluded ? number >= limit.minimum : number > limit.minimum else {
            problems.append(ReadProblem(code: .invalidValue, message: limit.belowMinimum, position: position))
            return nil
        }
        guard number.isFinite, number <= limit.maximum else {
            problems.append(
                ReadProblem(
                    code: .limitExceeded,
                    message:
                        "\(describedValue) is over the limit of \(limit.maximumText) (\(limit.name)); \(limit.fix)",
                    position: position))
            return nil
        }
        return number
    }

    /// `retry.maxAttempts`: an integer in ``AttemptLimit/retry``.
    func retryAttempts(_ problems: inout [ReadProblem]) -> Int? {
        guard case .int(let attempts) = value, attempts >= AttemptLimit.retry.lowerBound else {
            problems.append(
                ReadProblem(
                    code: isInt ? .invalidValue : .wrongType,
                    message: "must be an integer of at least 1 (runs, the first included), found \(describedValue)",
                    position: position))
            return nil
        }
        let limit = AttemptLimit.retry.upperBound
        guard attempts <= limit else {
            problems.append(
                ReadProblem(
                    code: .limitExceeded,
                    message: "\(attempts) runs are over the limit of \(limit) (ConfigLimits.maxRetryAttempts); use at "
                        + "most \(limit), with a delay (initialDelayMs, multiplier) to wait out longer outages",
                    position: position))
            return nil
        }
        return attempts
    }

    /// `policy.maxAttempts`: an integer in ``AttemptLimit/policy``.
    func policyAttempts(_ problems: inout [ReadProblem]) -> Int? {
        if case .int(let attempts) = value, AttemptLimit.policy.contains(attempts) { return attempts }
        // Below 1 is an invalid value, above the limit a limit exceeded (as retry.maxAttempts).
        let isBelow = if case .int(let attempts) = value { attempts < AttemptLimit.policy.lowerBound } else { false }
        problems.append(
            ReadProblem(
                code: isInt ? (isBelow ? .invalidValue : .limitExceeded) : .wrongType,
                message:
                    "must be an integer from 1 to \(AttemptLimit.policy.upperBound) (BuildPolicy.maximumAttempts): "
                    + "the builds one generation may have; found \(describedValue)",
                position: position))
        return nil
    }

    /// A name (a provider id, a scope or group name): a string that follows the naming rules (not empty, at most 256 bytes, no control characters).
    func identifier(what: String, _ problems: inout [ReadProblem]) -> String? {
        guard let value = string(&problems) else { return nil }
        if let problem = NameRules.problem(with: value) {
            problems.append(
                ReadProblem(
                    code: .invalidName, message: "\(what) '\(NameRules.visible(value))' \(problem)", position: position)
            )
            return nil
        }
        return value
    }

    /// `"transient"` or `"permanent"`.
    func failureKind(_ problems: inout [ReadProblem]) -> FailureKind? {
        guard let word = string(&problems) else { return nil }
        if let kind = FailureKind(rawValue: word) { return kind }
        var message = "unknown failure kind '\(NameRules.visible(word))'"
        if let suggestion = NameSuggestion.closest(to: word, among: ["transient", "permanent"]) {
            message += "; did you mean '\(suggestion)'?"
        } else {
            message += "; use \"transient\" or \"permanent\""
        }
        problems.append(ReadProblem(code: .invalidValue, message: message, position: position))
        return nil
    }

    /// `"eager"`, `"deferred"` or `"lazy"`.
    func startPolicy(_ problems: inout [ReadProblem]) -> StartPolicy? {
        guard let word = string(&problems) else { return nil }
        if let policy = StartPolicy(rawValue: word) { return policy }
        let words = StartPolicy.allCases.map(\.rawValue)
        var message = "unknown start policy '\(NameRules.visible(word))'"
        if let suggestion = NameSuggestion.closest(to: word, among: words) {
            message += "; did you mean '\(suggestion)'?"
        } else {
            message += "; use \"eager\" (the default), \"deferred\" or \"lazy\""
        }
        problems.append(ReadProblem(code: .invalidValue, message: message, position: position))
        return nil
    }

    /// `"main"` or `"nonisolated"`.
    func isolation(_ problems: inout [ReadProblem]) -> ServiceSpec.Isolation? {
        guard let word = string(&problems) else { return nil }
        if let isolation = ServiceSpec.Isolation(name: word) { return isolation }
        var message = "unknown isolation '\(NameRules.visible(word))'"
        if let suggestion = NameSuggestion.closest(to: word, among: ServiceSpec.Isolation.all.map(\.description)) {
            message += "; did you mean '\(suggestion)'?"
        } else {
            message += "; use \"main\" (the provider runs on the main actor) or \"nonisolated\""
        }
        problems.append(ReadProblem(code: .invalidValue, message: message, position: position))
        return nil
    }

    /// `"high"`, `"medium"`, `"low"` or `"background"`.
    func priority(_ problems: inout [ReadProblem]) -> ServicePriority? {
        guard let word = string(&problems) else { return nil }
        if let priority = ServicePriority(name: word) { return priority }
        let words = ServicePriority.all.map(\.description)
        var message = "unknown priority '\(NameRules.visible(word))'"
        if let suggestion = NameSuggestion.closest(to: word, among: words) {
            message += "; did you mean '\(suggestion)'?"
        } else {
            message +=
                "; use one of " + words.map { "\"\($0)\"" }.joined(separator: ", ")
                + " (or leave it out: background for a deferred service, its callers' otherwise)"
        }
        problems.append(ReadProblem(code: .invalidValue, message: message, position: position))
        return nil
    }

    var isInt: Bool {
        if case .int = value { return true }
        return false
    }

    var isNull: Bool {
        if case .null = value { return true }
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

    private func wrongType(_ expected: String) -> ReadProblem {
        ReadProblem(code: .wrongType, message: "\(expected), found \(typeName)", position: position)
    }
}
