import Foundation
public import Testing

/// Parses JSON Lines output with Foundation, one object per non-empty line.
public enum JSONLines {
    /// The objects of `text`; a line that is not a JSON object is recorded as an issue.
    public static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        var objects: [[String: Any]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let parsed = try? JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let object = parsed as? [String: Any] else {
                Issue.record("not a JSON object: \(line)", sourceLocation: sourceLocation)
                continue
            }
            objects.append(object)
        }
        return objects
    }

    /// The JSON type of a parsed value: `string`, `number`, `boolean`, `array` or `other`.
    public static func type(of value: Any) -> String {
        switch value {
        case is String: "string"
        case let number as NSNumber where String(cString: number.objCType) == "c": "boolean"
        case is [Any]: "array"
        case is NSNumber: "number"
        default: "other"
        }
    }
}
