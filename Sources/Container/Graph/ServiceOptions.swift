/// A service's options, with typed access and secret marking.
///
/// Providers read their options through throwing, typed accessors so that a wrong
/// type or a missing option names the service and the option:
///
/// ```swift
/// let path = try context.options.path("path")
/// let delay = try context.options.int("durationMs", default: 0)
/// ```
///
/// Options listed in `secretKeys` are redacted wherever the runtime prints options
/// or errors (traces, error messages, `description`).
///
/// Paths read with ``path(_:default:)`` may start at a folder the app names, a path root:
/// `"$data/app.sqlite"` with `pathRoots: ["data": applicationSupport]` (see ``pathRoots``).
public struct ServiceOptions: Sendable, Hashable, CustomStringConvertible {
    /// The raw option values by name.
    public var values: [String: ServiceOptions.Value]
    /// Names of options whose values are secrets.
    public var secretKeys: Set<String>
    /// The folder relative paths resolve against (the config file's folder), if any.
    public var baseDirectory: String?
    /// Folders the app names, for paths that must not live next to the config: a path option
    /// `"$data/app.sqlite"` resolves to `pathRoots["data"] + "/app.sqlite"`. Empty by default;
    /// a path naming a root that is not here is an ``OptionError`` with a suggestion.
    public var pathRoots: [String: String]

    /// Creates options.
    public init(
        _ values: [String: ServiceOptions.Value] = [:], secretKeys: Set<String> = [], baseDirectory: String? = nil,
        pathRoots: [String: String] = [:]
    ) {
        self.values = values
        self.secretKeys = secretKeys
        self.baseDirectory = baseDirectory
        self.pathRoots = pathRoots
    }

    /// The raw value of `key`, if present.
    public subscript(key: String) -> ServiceOptions.Value? { values[key] }

    /// The string at `key`.
    /// - Throws: ``OptionError`` when absent (and no default) or not a string.
    public func string(_ key: String, default defaultValue: String? = nil) throws(OptionError) -> String {
        switch values[key] {
        case .string(let value): return value
        case nil, .null?:
            if let defaultValue { return defaultValue }
            throw .missing(key)
        case let other?: throw .wrongType(key, expected: "a string", found: other.typeName)
        }
    }

    /// The integer at `key` (a whole-number double is accepted).
    /// - Throws: ``OptionError`` when absent (and no default) or not an integer.
    public func int(_ key: String, default defaultValue: Int? = nil) throws(OptionError) -> Int {
        switch values[key] {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 1e15: return Int(value)
        case .double(let value) where !value.isFinite || (value.rounded() == value && abs(value) >= 0x1p63):
            // Written as an integer, too large for one (JSON has no limit; Int has).
            throw .invalid(key, "is too large for an integer (at most \(Int.max), Int.max); use a smaller value")
        case nil, .null?:
            if let defaultValue { return defaultValue }
            throw .missing(key)
        case let other?: throw .wrongType(key, expected: "an integer", found: other.typeName)
        }
    }

    /// The number at `key`.
    /// - Throws: ``OptionError`` when absent (and no default) or not a number.
    public func double(_ key: String, default defaultValue: Double? = nil) throws(OptionError) -> Double {
        switch values[key] {
        case .int(let value): return Double(value)
        case .double(let value): return value
        case nil, .null?:
            if let defaultValue { return defaultValue }
            throw .missing(key)
        case let other?: throw .wrongType(key, expected: "a number", found: other.typeName)
        }
    }

    /// The boolean at `key`.
    /// - Throws: ``OptionError`` when absent (and no default) or not a boolean.
    public func bool(_ key: String, default defaultValue: Bool? = nil) throws(OptionError) -> Bool {
        switch values[key] {
        case .bool(let value): return value
        case nil, .null?:
            if let defaultValue { return defaultValue }
            throw .missing(key)
        case let other?: throw .wrongType(key, expected: "a boolean", found: other.typeName)
        }
    }

    /// The list of strings at `key`.
    /// - Throws: ``OptionError`` when absent (and no default) or not a list of strings.
    public func strings(_ key: String, default defaultValue: [String]? = nil) throws(OptionError) -> [String] {
        switch values[key] {
        case .array(let items):
            var result: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let value) = item else {
                    throw .wrongType("\(key)[\(index)]", expected: "a string", found: item.typeName)
                }
                result.append(value)
            }
            return result
        case nil, .null?:
            if let defaultValue { return defaultValue }
            throw .missing(key)
        case let other?: throw .wrongType(key, expected: "a list of strings", found: other.typeName)
        }
    }

    /// The path at `key`: `$root/rest` resolved against ``pathRoots``, other relative paths
    /// against ``baseDirectory``, absolute paths as they are.
    /// - Throws: ``OptionError`` when absent (and no default), not a string, or starting with a
    ///   `$root` that is not in ``pathRoots``.
    public func path(_ key: String, default defaultValue: String? = nil) throws(OptionError) -> String {
        let raw = try string(key, default: defaultValue)
        if raw.hasPrefix("$") { return try resolveRooted(raw, option: key) }
        guard !raw.hasPrefix("/"), let baseDirectory, !baseDirectory.isEmpty else { return raw }
        return baseDirectory.hasSuffix("/") ? baseDirectory + raw : baseDirectory + "/" + raw
    }

    /// Every value inside the options marked secret, as text (strings, and numbers of four or
    /// more characters, inside arrays and objects too); the runtime redacts these.
    public var secretStrings: [String] {
        var result: [String] = []
        func collect(_ value: ServiceOptions.Value) {
            switch value {
            case .string(let text): if !text.isEmpty { result.append(text) }
            case .int(let number) where String(number).count >= 4: result.append(String(number))
            case .double(let number) where String(number).count >= 4: result.append(String(number))
            case .array(let items): items.forEach(collect)
            case .object(let fields): fields.values.forEach(collect)
            default: break
            }
        }
        for key in secretKeys { if let value = values[key] { collect(value) } }
        return result
    }

    /// The options with secret values replaced by `<redacted>`.
    public var description: String {
        let shown = values.sorted { $0.key < $1.key }.map { key, value in
            "\(key): " + (secretKeys.contains(key) ? Redactor.placeholder : value.description)
        }
        return "[" + shown.joined(separator: ", ") + "]"
    }
}

/// An option is missing or has the wrong type.
public struct OptionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option's name.
    public let option: String
    /// What is wrong and how to fix it.
    public let message: String

    /// A required option is absent.
    public static func missing(_ option: String) -> OptionError {
        OptionError(
            option: option,
            message: "option '\(NameRules.visible(option))' is required; add it to the service's \"options\"")
    }

    /// An option has the wrong JSON type.
    public static func wrongType(_ option: String, expected: String, found: String) -> OptionError {
        OptionError(
            option: option, message: "option '\(NameRules.visible(option))' must be \(expected), found \(found)")
    }

    /// An option's value is of the right type but not allowed.
    public static func invalid(_ option: String, _ explanation: String) -> OptionError {
        OptionError(option: option, message: "option '\(NameRules.visible(option))': \(explanation)")
    }

    public var description: String { message }
}
