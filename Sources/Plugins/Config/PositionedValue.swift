internal import Container
import Synchronization

/// A parsed JSON value with where it, and each value inside it, was written, so that errors
/// about it (types, unknown keys, graph problems) can name the line and column.
///
/// Its ``value`` is a ``/Container/ServiceOptions/Value``, the runtime's one JSON value type; the
/// tree keeps each scalar with its position, an array's elements by index and an object's members
/// in the order written, duplicate keys included (the value's dictionary keeps the last of them,
/// as service options do; the loader reports duplicates and reads the first).
struct PositionedValue: Sendable {
    /// One `"key": value` member of an object, in source order.
    struct Member: Sendable {
        let key: String
        let keyPosition: SourcePosition
        let value: PositionedValue
    }

    /// What the value is: a scalar holds its value; an array's or an object's ``value`` is made
    /// when asked (most of a config's containers are read member by member, never as one value).
    private enum Shape: Sendable {
        case scalar(ServiceOptions.Value)
        case array
        case object
    }

    private let shape: Shape
    /// Where the value starts.
    let position: SourcePosition
    /// An array's elements, by index; empty for any other value.
    let elements: [PositionedValue]
    /// An object's members in the order written; empty for any other value.
    let members: [Member]

    /// A value that holds no other value (not an array or an object).
    init(scalar value: ServiceOptions.Value, at position: SourcePosition) {
        self.shape = .scalar(value)
        self.position = position
        self.elements = []
        self.members = []
    }

    /// An array of `elements`.
    init(elements: [PositionedValue], at position: SourcePosition) {
        self.shape = .array
        self.position = position
        self.elements = elements
        self.members = []
    }

    /// An object of `members`.
    init(members: [Member], at position: SourcePosition) {
        self.shape = .object
        self.position = position
        self.elements = []
        self.members = members
    }

    var isArray: Bool { if case .array = shape { true } else { false } }
    var isObject: Bool { if case .object = shape { true } else { false } }
    /// The text of a string value; `nil` for any other.
    var stringValue: String? { if case .scalar(.string(let text)) = shape { text } else { nil } }

    /// The JSON value; an object's later duplicate key wins, as in service options. Made anew
    /// for an array or an object at each call: test ``isArray`` and ``isObject`` instead.
    var value: ServiceOptions.Value {
        switch shape {
        case .scalar(let value): return value
        case .array:
            Self.countMade()
            return .array(elements.map(\.value))
        case .object:
            Self.countMade()
            var fields: [String: ServiceOptions.Value] = [:]
            fields.reserveCapacity(members.count)
            for member in members { fields[member.key] = member.value.value }
            return .object(fields)
        }
    }

    #if DEBUG
        /// Counts the arrays and objects ``value`` makes, in a debug build, where a test binds it:
        /// what loading costs, counted, not timed.
        @TaskLocal static var containersMade: MadeCount?

        /// Counts one container made, where a test counts them.
        private static func countMade() { containersMade?.add() }

        /// Counts the object members a key-path walk (``position(of:)``) looks at, in a debug
        /// build, where a test binds it: placing the messages' positions, counted.
        @TaskLocal static var membersWalked: MadeCount?

        /// Counts one member looked at by a walk, where a test counts them.
        static func countWalked() { membersWalked?.add() }

        /// A count ``containersMade`` adds to.
        final class MadeCount: Sendable {
            private let count = Mutex(0)
            var value: Int { count.withLock { $0 } }
            func add() { count.withLock { $0 += 1 } }
        }
    #else
        /// Counts nothing in a release build.
        @inline(__always) private static func countMade() {}
        /// Counts nothing in a release build.
        @inline(__always) static func countWalked() {}
    #endif

    /// A short name of the value's JSON type, for error messages.
    var typeName: String {
        switch shape {
        case .scalar(let value): value.typeName
        case .array: ServiceOptions.Value.array([]).typeName
        case .object: ServiceOptions.Value.object([:]).typeName
        }
    }
}
