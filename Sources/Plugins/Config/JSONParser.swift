internal import Container

/// A small strict JSON parser (RFC 8259) that records the line and column of every value: it
/// makes a ``/Container/ServiceOptions/Value`` with its positions (``PositionedValue``).
///
/// Foundation's `JSONSerialization` reports only a byte offset and drops positions, which
/// would leave semantic errors (an unknown key, a missing dependency) without a line. This
/// parser keeps them, and explains the mistakes people make in hand-written JSON: trailing
/// commas, comments, single quotes, unquoted keys.
struct JSONParser {
    /// The text is not valid JSON, or goes past a limit of the format.
    struct SyntaxError: Error, Sendable, Hashable {
        /// What kind of problem stopped the parser.
        enum Kind: Sendable, Hashable {
            /// Not JSON (or not UTF-8).
            case syntax
            /// Valid JSON past a documented limit (``ConfigLimits``).
            case limit
        }

        let message: String
        let position: SourcePosition
        var kind = Kind.syntax
    }

    let bytes: [UInt8]
    var index = 0
    var line = 1
    var column = 1
    /// Nesting depth, bounded so that a hostile file cannot exhaust the stack.
    private var depth = 0
    private static let maxDepth = ConfigLimits.maxNestingDepth
    static let maxStringBytes = ConfigLimits.maxStringBytes

    /// Parses `bytes` (UTF-8) as one JSON value followed only by whitespace.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> PositionedValue {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.error("the file is empty; expected a JSON object") }
        let node = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected \(parser.describeCurrent()) after the end of the JSON value")
        }
        return node
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    var position: SourcePosition { SourcePosition(line: line, column: column) }

    func error(
        _ message: String, at position: SourcePosition? = nil, kind: SyntaxError.Kind = .syntax
    ) -> SyntaxError {
        SyntaxError(message: message, position: position ?? self.position, kind: kind)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func advance() {
        let byte = bytes[index]
        index += 1
        // A line ends with "\n", "\r\n" or a lone "\r" (old Mac files): each counts once.
        if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && current != UInt8(ascii: "\n")) {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            // Continuation bytes of a multi-byte character do not start a new column.
            column += 1
        }
    }

    private mutating func skipWhitespace() {
        while let byte = current,
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\r")
        {
            advance()
        }
    }

    /// The character at the cursor, quoted for a message (`'x'`, `end of file`).
    func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
            return "invalid UTF-8 (byte \(UTF8Validation.hex(bytes[index])); save the file as UTF-8)"
        }
        let text = String(decoding: bytes[index..<index + length], as: UTF8.self)
        switch text {
        case "\n": return "end of line"
        case "\t": return "tab"
        default: return "'\(NameRules.visible(text))'"
        }
    }

    private mutating func parseValue() throws(SyntaxError) -> PositionedValue {
        let start = position
        guard let byte = current else { throw error("unexpected end of file; expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return PositionedValue(scalar: .string(try parseString()), at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "t"): try expectWord("true"); return PositionedValue(scalar: .bool(true), at: start)
        case UInt8(ascii: "f"): try expectWord("false"); return PositionedValue(scalar: .bool(false), at: start)
        case UInt8(ascii: "n"): try expectWord("null"); return PositionedValue(scalar: .null, at: start)
        case UInt8(ascii: "'"): throw error("JSON strings use double quotes, not single quotes")
        case UInt8(ascii: "/"): throw error("JSON does not allow comments; remove it (or use a \"description\" key)")
        default:
            throw error(
                "unexpected \(describeCurrent()); expected a value (object, array, string, number, true, false or null)"
            )
        }
    }

    private mutating func expectWord(_ word: String) throws(SyntaxError) {
        let start = position
        for expected in word.utf8 {
            guard current == expected else {
                throw error("invalid literal; expected '\(word)' (JSON literals are lowercase)", at: start)
            }
            advance()
        }
        if let next = current, Self.isIdentifierByte(next) {
            throw error("invalid literal; expected '\(word)'", at: start)
        }
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maxDepth else {
            throw error(
                "the JSON is nested more than \(Self.maxDepth) levels deep (ConfigLimits.maxNestingDepth); "
                    + "flatten the options", kind: .limit)
        }
    }

    private mutating func parseObject() throws(SyntaxError) -> PositionedValue {
        let start = position
        try enter()
        advance()  // {
        var members: [PositionedValue.Member] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            advance()
            depth -= 1
            return PositionedValue(members: [], at: start)
        }
        while true {
            skipWhitespace()
            let keyPosition = position
            switch current {
            case UInt8(ascii: "\"")?:
                break
            case UInt8(ascii: "}")? where !members.isEmpty:
                throw error("JSON does not allow a trailing comma before '}'; remove the comma")
            case UInt8(ascii: "'")?:
                throw error("JSON keys use double quotes, not single quotes")
            case UInt8(ascii: "/")?:
                throw error("JSON does not allow comments; remove it (or use a \"description\" key)")
            case nil:
                throw error(
                    "unexpected end of file inside an object opened at line \(start.line), column \(start.column); expected '}'"
                )
            default:
                throw error("expected a key in double quotes, found \(describeCurrent())")
            }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else {
                throw error("expected ':' after the key \"\(NameRules.visible(key))\", found \(describeCurrent())")
            }
            advance()
            skipWhitespace()
            let value = try parseValue()
            members.append(PositionedValue.Member(key: key, keyPosition: keyPosition, value: value))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?:
                advance()
            case UInt8(ascii: "}")?:
                advance()
                depth -= 1
                return PositionedValue(members: members, at: start)
            case UInt8(ascii: "\"")?:
                throw error(
                    "expected ',' or '}' after the value of \"\(NameRules.visible(key))\", found '\"'; add a comma between members"
                )
            case nil:
                throw error(
                    "unexpected end of file inside an object opened at line \(start.line), column \(start.column); expected '}'"
                )
            default:
                throw error(
                    "expected ',' or '}' after the value of \"\(NameRules.visible(key))\", found \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> PositionedValue {
        let start = position
        try enter()
        advance()  // [
        var items: [PositionedValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            advance()
            depth -= 1
            return PositionedValue(elements: [], at: start)
        }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]"), !items.isEmpty {
                throw error("JSON does not allow a trailing comma before ']'; remove the comma")
            }
            if current == nil {
                throw error(
                    "unexpected end of file inside an array opened at line \(start.line), column \(start.column); expected ']'"
                )
            }
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?:
                advance()
            case UInt8(ascii: "]")?:
                advance()
                depth -= 1
                return PositionedValue(elements: items, at: start)
            case nil:
                throw error(
                    "unexpected end of file inside an array opened at line \(start.line), column \(start.column); expected ']'"
                )
            default:
                throw error("expected ',' or ']' after an array element, found \(describeCurrent())")
            }
        }
    }
}
