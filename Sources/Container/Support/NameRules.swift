/// What a name in a graph may be: service names, the names in `dependsOn`, provider and entry
/// point ids.
///
/// A name is not empty, at most ``maxBytes`` bytes of UTF-8, and has no control character
/// (Unicode category Cc: U+0000–U+001F, U+007F DEL and U+0080–U+009F). Names are printed in
/// traces, errors and terminals, where a control character could rewrite what a person reads;
/// validation (``ServiceGraph/init(_:registry:requirements:scopes:)``) rejects such names with
/// ``GraphError/Code/invalidName``, for services declared in code as well as in config files.
package enum NameRules {
    /// The longest name, in UTF-8 bytes.
    package static let maxBytes = 256

    /// Why `name` breaks the rules (to follow "service name 'x' "), or `nil` when it is valid.
    package static func problem(with name: String) -> String? {
        if name.isEmpty { return "is empty; give it a name" }
        let length = name.utf8.count
        if length > maxBytes {
            return
                "is \(length) bytes long, over the limit of \(maxBytes) bytes (NameRules.maxBytes); use a shorter name"
        }
        // A byte scan finds that no control character is there, the common case, without decoding.
        guard mayHoldControlCharacter(name) else { return nil }
        for (offset, scalar) in name.unicodeScalars.enumerated() where isControl(scalar) {
            return "contains the control character \(codePoint(scalar)) (character \(offset + 1)); remove it"
        }
        return nil
    }

    /// Whether `scalar` is a control character (C0, DEL or C1).
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `U+0000` notation.
    package static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// How many characters of a value a message quotes (``visible(_:limit:)``).
    package static let visibleLength = 64

    /// `text` safe to print in a message: control and bidirectional formatting characters as
    /// `\u{…}` escapes (``isBidiFormatting(_:)``), and at most
    /// `limit` characters printed, an escape counting all of its own (then `…`).
    package static func visible(_ text: String, limit: Int = visibleLength) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            guard count < limit else {
                result += "…"
                break
            }
            if isControl(scalar) || isBidiFormatting(scalar) {
                let escape = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                count += escape.count
                result += escape
            } else {
                count += 1
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `text` has a byte a control character starts with: in UTF-8 a control character
    /// is a byte below 0x20, 0x7F, or 0xC2 before 0x80...0x9F.
    private static func mayHoldControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
    }

    /// Whether `scalar` is a bidirectional formatting character (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069): printed raw, it can reorder what a terminal shows, so a
    /// message escapes it as it does a control character.
    package static func isBidiFormatting(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` with every control and bidirectional formatting character written as a `\u{…}`
    /// escape, at full length.
    package static func escapingControlCharacters(_ text: String) -> String {
        // A byte scan finds that none is there, the common case, without decoding (the
        // formatting characters start with 0xD8 or 0xE2 in UTF-8).
        guard mayHoldControlCharacter(text) || text.utf8.contains(where: { $0 == 0xD8 || $0 == 0xE2 }),
            text.unicodeScalars.contains(where: { isControl($0) || isBidiFormatting($0) })
        else { return text }
        return visible(text, limit: .max)
    }
}
