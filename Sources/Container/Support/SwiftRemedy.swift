/// The Swift a remedy in an error message tells the user to write: every line it prints compiles
/// as it is (a test compiles each form), so a fix can be pasted.
enum SwiftRemedy {
    /// `"name"` as a Swift string literal.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                escaped += scalar.value < 0x20 ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }
        }
        return "\"\(escaped)\""
    }

    /// `dependsOn: ["name"]`: the argument of a ``ServiceSpec`` that declares a dependency (a
    /// service or a `group:` entry).
    static func dependsOn(_ name: String) -> String { "dependsOn: [\(literal(name))]" }

    /// `ServiceKey<Value>("name")`.
    static func key(_ name: String, type: Any.Type) -> String { "ServiceKey<\(type)>(\(literal(name)))" }

    /// `@Needs(ServiceKey<Value>("name")) var name: Value`: the property an entry point declares.
    static func needs(_ name: String, type: Any.Type) -> String {
        "@Needs(\(key(name, type: type))) var \(identifier(name)): \(type)"
    }

    /// A Swift identifier made from a service name: letters, digits and `_` kept, a word after any
    /// other character capitalized (`push-detail` → `pushDetail`), `_` before a leading digit.
    static func identifier(_ name: String) -> String {
        var result = ""
        var capitalizeNext = false
        for character in name {
            guard character.isASCII, character.isLetter || character.isNumber || character == "_" else {
                capitalizeNext = !result.isEmpty
                continue
            }
            result += capitalizeNext ? character.uppercased() : String(character)
            capitalizeNext = false
        }
        if result.isEmpty { return "service" }
        if let first = result.first, first.isNumber { result = "_" + result }
        return result
    }
}
