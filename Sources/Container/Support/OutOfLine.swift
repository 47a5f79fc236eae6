/// An optional value kept out of line: one word when it is `nil`, a box when it is there. For a
/// large value that is rarely there, in a state many instances keep.
enum OutOfLine<Value> {
    case none
    indirect case some(Value)

    init(_ value: Value?) { self = value.map { .some($0) } ?? .none }

    /// The value, if there is one.
    var value: Value? {
        if case .some(let value) = self { return value }
        return nil
    }
}

extension OutOfLine: Sendable where Value: Sendable {}
