/// One SQLite value: a bound parameter or a column of a result row.
public enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    /// `NULL`.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The value as text, when it is text.
    public var string: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The value as an `Int`, when it is an integer.
    public var int: Int? {
        if case .integer(let value) = self { return Int(value) }
        return nil
    }

    /// A short form for messages; text is quoted.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let bytes): "<\(bytes.count) bytes>"
        }
    }
}
