internal import Container

/// A parsed JSON value that remembers where it was written, so that errors about it
/// (syntax, types, unknown keys, graph problems) can name the line and column.
struct JSONNode: Sendable {
    /// One `"key": value` member of an object, in source order.
    struct Member: Sendable {
        let key: String
        let keyPosition: SourcePosition
        let value: JSONNode
    }

    enum Value: Sendable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    let value: Value
    /// Where the value starts.
    let position: SourcePosition

    /// A short name of the value's JSON type, for error messages.
    var typeName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int: "an integer"
        case .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The value without positions, as service options hold it.
    var optionValue: OptionValue {
        switch value {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let items): .array(items.map(\.optionValue))
        case .object(let members):
            // A later duplicate key wins, as in most JSON readers; the loader reports duplicates.
            .object(Dictionary(members.map { ($0.key, $0.value.optionValue) }, uniquingKeysWith: { _, last in last }))
        }
    }
}
