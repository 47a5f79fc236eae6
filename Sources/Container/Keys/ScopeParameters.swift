extension ScopeParameters {
    /// A typed name of a scope instance's parameter (the push payload's item id, the window's id).
    ///
    /// ```swift
    /// extension ScopeParameters.Key where Value == String {
    ///     static let itemID = Self("itemID")
    /// }
    /// let push = try container.openScope("push", id: "notification-42", parameters: [.set(.itemID, to: "A-17")])
    /// // in the scope's provider:
    /// let item = try context.parameter(.itemID)
    /// ```
    public struct Key<Value: Sendable>: Sendable, Hashable, CustomStringConvertible {
        /// The parameter's name.
        public let name: String

        /// A parameter called `name` whose value is a `Value`.
        public init(_ name: String) { self.name = name }

        public var description: String { "\(name): \(Value.self)" }
    }
}

/// The parameters a scope instance is opened with; its providers read them with
/// ``ProviderContext/parameter(_:)``. A missing parameter is a permanent failure of the node
/// that reads it, never a silent default.
public struct ScopeParameters: Sendable, ExpressibleByArrayLiteral {
    /// One parameter with its value: `.set(.itemID, to: "A-17")`.
    public struct Entry: Sendable {
        let name: String
        let value: any Sendable

        /// The parameter `key` with `value`, type-checked against the key.
        public static func set<Value>(_ key: ScopeParameters.Key<Value>, to value: Value) -> Entry {
            Entry(name: key.name, value: value)
        }
    }

    /// The most parameters one instance may have.
    public static let maximumCount = 64

    private var values: [String: any Sendable] = [:]

    /// No parameters.
    public init() {}

    /// The given parameters; a later entry with the same name replaces an earlier one.
    public init(arrayLiteral entries: Entry...) {
        for entry in entries { values[entry.name] = entry.value }
    }

    /// The value of `key`, if it was given with that type.
    public subscript<Value>(key: ScopeParameters.Key<Value>) -> Value? {
        get { values[key.name] as? Value }
        set { values[key.name] = newValue }
    }

    /// The names of the parameters given, sorted.
    public var names: [String] { values.keys.sorted() }

    /// How many parameters were given.
    public var count: Int { values.count }

    /// The value of `name`, untyped (for messages).
    func anyValue(_ name: String) -> (any Sendable)? { values[name] }

    /// These parameters, and those of `parent` these do not set (a nested instance's).
    func inheriting(_ parent: ScopeParameters) -> ScopeParameters {
        var merged = parent
        merged.values.merge(values) { _, own in own }
        return merged
    }
}

extension ScopeParameters {
    /// A scope's provider read a parameter the scope instance was not opened with, or with another type.
    /// Always permanent: opening the same instance again gives the same parameters.
    public struct LookupError: ClassifiedError, Sendable, CustomStringConvertible {
        /// The service that read the parameter.
        public let service: String
        /// The parameter's name.
        public let parameter: String
        /// What happened and how to fix it.
        public let message: String

        public var failureKind: FailureKind { .permanent }
        public var description: String { message }

        static func missing(_ parameter: String, type: Any.Type, service: String, instance: String, given: [String])
            -> ScopeParameters.LookupError
        {
            let list = given.isEmpty ? "none" : given.joined(separator: ", ")
            return ScopeParameters.LookupError(
                service: service, parameter: parameter,
                message: "service '\(service)' reads parameter '\(parameter)' (\(type)), but scope instance "
                    + "'\(instance)' was opened without it (parameters given: \(list)); pass it to openScope(_:id:parameters:)"
            )
        }

        static func wrongType(
            _ parameter: String, expected: Any.Type, actual: Any.Type, service: String, instance: String
        )
            -> ScopeParameters.LookupError
        {
            ScopeParameters.LookupError(
                service: service, parameter: parameter,
                message: "service '\(service)' reads parameter '\(parameter)' as \(expected), but scope instance "
                    + "'\(instance)' was opened with a \(actual); pass a \(expected)")
        }

        static func notInScope(_ parameter: String, service: String) -> ScopeParameters.LookupError {
            ScopeParameters.LookupError(
                service: service, parameter: parameter,
                message: "service '\(service)' reads scope parameter '\(parameter)' but is an app service; only "
                    + "services that live in a scope have parameters")
        }
    }
}
