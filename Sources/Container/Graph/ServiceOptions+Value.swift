extension ServiceOptions {
    /// A JSON-shaped option value, as written in a service's `options`.
    public enum Value: Sendable, Hashable, CustomStringConvertible {
        /// JSON `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number written without a fraction or exponent that fits an `Int` (`3`).
        case int(Int)
        /// Any other number (`2.5`, `1e3`, an integer too large for `Int`).
        case double(Double)
        /// A string.
        case string(String)
        /// A list, in the order written.
        case array([ServiceOptions.Value])
        /// An object: values by key.
        case object([String: ServiceOptions.Value])

        /// A short name of the value's JSON type, for error messages.
        public var typeName: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .int: "an integer"
            case .double: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }

        public var description: String {
            switch self {
            case .null: "null"
            case .bool(let value): String(value)
            case .int(let value): String(value)
            case .double(let value): String(value)
            case .string(let value): "\"\(value)\""
            case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
            case .object(let fields):
                "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
                    + "}"
            }
        }
    }
}
