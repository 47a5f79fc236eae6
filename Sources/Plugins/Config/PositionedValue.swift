internal import Container

/// A parsed JSON value with where it, and each value inside it, was written, so that errors
/// about it (types, unknown keys, graph problems) can name the line and column.
///
/// The value is a ``/Container/ServiceOptions/Value``, the runtime's one JSON value type; the positions
/// are kept beside it, as a tree of the same shape: an array's elements by index, an object's
/// members in the order written, duplicate keys included (the value's dictionary keeps the last
/// of them, as service options do; the loader reports duplicates and reads the first).
struct PositionedValue: Sendable {
    /// One `"key": value` member of an object, in source order.
    struct Member: Sendable {
        let key: String
        let keyPosition: SourcePosition
        let value: PositionedValue
    }

    let value: ServiceOptions.Value
    /// Where the value starts.
    let position: SourcePosition
    /// An array's elements, by index; empty for any other value.
    let elements: [PositionedValue]
    /// An object's members in the order written; empty for any other value.
    let members: [Member]

    /// A value that holds no other value (not an array or an object).
    init(scalar value: ServiceOptions.Value, at position: SourcePosition) {
        self.value = value
        self.position = position
        self.elements = []
        self.members = []
    }

    /// An array of `elements`.
    init(elements: [PositionedValue], at position: SourcePosition) {
        self.value = .array(elements.map(\.value))
        self.position = position
        self.elements = elements
        self.members = []
    }

    /// An object of `members`; a later duplicate key wins in ``value``.
    init(members: [Member], at position: SourcePosition) {
        var fields: [String: ServiceOptions.Value] = [:]
        fields.reserveCapacity(members.count)
        for member in members { fields[member.key] = member.value.value }
        self.value = .object(fields)
        self.position = position
        self.elements = []
        self.members = members
    }

    /// A short name of the value's JSON type, for error messages.
    var typeName: String { value.typeName }
}
