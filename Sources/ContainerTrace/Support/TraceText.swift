/// Text helpers shared by the trace sinks and renderers: JSON strings and the escaping rules
/// of DOT and Mermaid. No Foundation, so the output is the same everywhere. Durations are
/// written by `DurationFormat` (module `Container`), the one duration formatter.
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
    /// A gantt task name: ``mermaidEscaped(_:)``, and a name that begins like one of the gantt
    /// grammar's keywords (which it reads case-insensitively at the start of a line: a node
    /// named `section x` would open a section) has its first character written as an entity
    /// code.
    static func mermaidGanttTask(_ name: String) -> String {
        let escaped = mermaidEscaped(name)
        let lowered = escaped.lowercased()
        guard let first = escaped.unicodeScalars.first, ganttKeywords.contains(where: { lowered.hasPrefix($0) })
        else { return escaped }
        return "#\(first.value);" + String(escaped.unicodeScalars.dropFirst())
    }

    /// The words the Mermaid gantt grammar reads at the start of a line, lowercased.
    private static let ganttKeywords = [
        "gantt", "title", "dateformat", "axisformat", "tickinterval", "section", "excludes", "includes",
        "todaymarker", "weekday", "weekend", "inclusiveenddates", "topaxis", "displaymode", "click",
        "acctitle", "accdescr",
    ]

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
