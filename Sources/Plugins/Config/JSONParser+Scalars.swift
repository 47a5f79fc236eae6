internal import Container

// The scalars of JSON: strings (escapes, surrogate pairs, the limits on their length) and numbers.
extension JSONParser {
    mutating func parseString() throws(SyntaxError) -> String {
        let start = position
        let startIndex = index
        advance()  // opening quote
        // Plain bytes are not copied one by one: each run between escapes is decoded from the
        // input in one piece, and a string without escapes (nearly all of them) is one decode.
        var result = ""
        var runStart = index
        func run(_ bytes: [UInt8], upTo end: Int) -> String { String(decoding: bytes[runStart..<end], as: UTF8.self) }
        while true {
            guard index < bytes.count else {
                throw error("unterminated string; add the closing '\"'", at: start)
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                // The bytes between the quotes, as written (an escape counts its characters).
                guard index - startIndex - 1 <= Self.maxStringBytes else {
                    throw error(
                        "the string is \(index - startIndex - 1) bytes long, over the limit of \(Self.maxStringBytes) "
                            + "bytes (ConfigLimits.maxStringBytes); keep long texts in a file the service reads",
                        at: start, kind: .limit)
                }
                let text = run(bytes, upTo: index)
                advance()
                if result.isEmpty { return text }
                result += text
                return result
            case UInt8(ascii: "\\"):
                result += run(bytes, upTo: index)
                let escapePosition = position
                advance()
                guard let escaped = current else { throw error("unterminated string escape") }
                advance()
                switch escaped {
                case UInt8(ascii: "\""): result.unicodeScalars.append("\"")
                case UInt8(ascii: "\\"): result.unicodeScalars.append("\\")
                case UInt8(ascii: "/"): result.unicodeScalars.append("/")
                case UInt8(ascii: "b"): result.unicodeScalars.append("\u{08}")
                case UInt8(ascii: "f"): result.unicodeScalars.append("\u{0C}")
                case UInt8(ascii: "n"): result.unicodeScalars.append("\n")
                case UInt8(ascii: "r"): result.unicodeScalars.append("\r")
                case UInt8(ascii: "t"): result.unicodeScalars.append("\t")
                case UInt8(ascii: "u"): result.unicodeScalars.append(try parseUnicodeEscape(at: escapePosition))
                default:
                    throw error(
                        "invalid escape sequence in a string; valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
                        at: escapePosition)
                }
                runStart = index
            case 0..<0x20:
                throw error("control character in a string; write a line break as \\n and a tab as \\t")
            case 0..<0x80:
                // Inside a string there is no line break (it would be a control character),
                // so only the column moves.
                index += 1
                column += 1
            default:
                // A multi-byte character is one column; it must be well-formed UTF-8 (decoding
                // would silently turn a bad byte into U+FFFD).
                guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
                    throw error(
                        "invalid UTF-8 in a string (byte \(UTF8Validation.hex(byte))); save the file as UTF-8")
                }
                index += length
                column += 1
            }
        }
    }

    private mutating func parseHex4(at escapePosition: SourcePosition) throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else {
                throw error("invalid \\u escape; expected four hexadecimal digits", at: escapePosition)
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    private mutating func parseUnicodeEscape(at escapePosition: SourcePosition) throws(SyntaxError) -> Unicode.Scalar {
        let first = try parseHex4(at: escapePosition)
        if (0xD800..<0xDC00).contains(first) {
            // A high surrogate must be followed by an escaped low surrogate.
            guard current == UInt8(ascii: "\\") else {
                throw error("unpaired surrogate in a \\u escape", at: escapePosition)
            }
            advance()
            guard current == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in a \\u escape", at: escapePosition)
            }
            advance()
            let second = try parseHex4(at: escapePosition)
            guard (0xDC00..<0xE000).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw error("unpaired surrogate in a \\u escape", at: escapePosition) }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw error("unpaired surrogate in a \\u escape", at: escapePosition)
        }
        return scalar
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    mutating func parseNumber() throws(SyntaxError) -> PositionedValue {
        let start = position
        let first = index
        var isInteger = true
        func isDigit(_ byte: UInt8?) -> Bool {
            byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
        }
        if current == UInt8(ascii: "-") { advance() }
        guard isDigit(current) else { throw error("invalid number; expected a digit after '-'", at: start) }
        if current == UInt8(ascii: "0") {
            advance()
            if isDigit(current) { throw error("invalid number; JSON numbers cannot have leading zeros", at: start) }
        } else {
            while isDigit(current) { advance() }
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            advance()
            guard isDigit(current) else { throw error("invalid number; expected a digit after '.'", at: start) }
            while isDigit(current) { advance() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            advance()
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
            guard isDigit(current) else { throw error("invalid number; expected a digit in the exponent", at: start) }
            while isDigit(current) { advance() }
        }
        // Up to 18 digits cannot overflow an Int: read them directly instead of through a String.
        if isInteger, index - first <= 18 {
            let negative = bytes[first] == UInt8(ascii: "-")
            var value = 0
            for byte in bytes[(negative ? first + 1 : first)..<index] {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return PositionedValue(scalar: .int(negative ? -value : value), at: start)
        }
        let text = String(decoding: bytes[first..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return PositionedValue(scalar: .int(value), at: start) }
        guard let value = Double(text) else { throw error("invalid number '\(text)'", at: start) }
        return PositionedValue(scalar: .double(value), at: start)
    }
}
