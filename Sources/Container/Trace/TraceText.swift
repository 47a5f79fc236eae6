/// Text helpers shared by the trace sinks and renderers: JSON strings, fixed-point numbers,
/// and the escaping rules of DOT and Mermaid. No Foundation, so the output is the same everywhere.
enum TraceText {
    /// `text` as a JSON string literal, quotes included (RFC 8259: `"`, `\` and control characters escaped).
    static func jsonString(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case let control where control.value < 0x20:
                result += "\\u" + hex4(control.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A JSON array of strings.
    static func jsonArray(_ items: [String]) -> String {
        "[" + items.map(jsonString).joined(separator: ",") + "]"
    }

    /// `value` in microseconds, as seconds with up to six decimals (`0.001234`), trailing zeros removed.
    static func seconds(_ value: Duration) -> String {
        fixedPoint(microseconds(value), decimals: 6)
    }

    /// `value` in microseconds, as milliseconds with up to three decimals (`12.5`), trailing zeros removed.
    static func milliseconds(_ value: Duration) -> String {
        fixedPoint(microseconds(value), decimals: 3)
    }

    /// A duration rounded to whole microseconds.
    static func microseconds(_ value: Duration) -> Int64 {
        let parts = value.components
        // Round half away from zero on the attosecond part (1 µs = 10^12 as).
        let micro =
            (parts.attoseconds + (parts.attoseconds >= 0 ? 500_000_000_000 : -500_000_000_000))
            / 1_000_000_000_000
        return parts.seconds * 1_000_000 + micro
    }

    /// `units / 10^decimals` written in decimal, without exponent and without trailing zeros.
    static func fixedPoint(_ units: Int64, decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let magnitude = units.magnitude
        let whole = magnitude / UInt64(scale)
        var fraction = magnitude % UInt64(scale)
        let sign = units < 0 ? "-" : ""
        guard fraction != 0 else { return sign + String(whole) }
        var digits = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return sign + String(whole) + "." + String(repeating: "0", count: digits - text.count) + text
    }

    /// A DOT quoted identifier or label: `"` and `\` escaped, line breaks as `\n`.
    static func dotQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Text safe inside a quoted Mermaid label (`id["..."]`) or a gantt task name.
    ///
    /// Mermaid decodes `#<decimal>;` entity codes in every diagram type, so characters that
    /// its grammars treat specially (quotes, `#`, `:` and `;` in gantt lines, `%` comments,
    /// HTML brackets) are written as entity codes; line breaks become spaces.
    static func mermaidEscaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "#", ":", ";", "%", "<", ">", "&", "`", "|", "[", "]", "{", "}", "(", ")", "\\":
                result += "#\(scalar.value);"
            case "\n", "\r", "\t": result += " "
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return (0..<4).reversed().map { String(digits[Int((value >> (UInt32($0) * 4)) & 0xF)]) }.joined()
    }
}
