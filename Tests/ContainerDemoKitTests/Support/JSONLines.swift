import Foundation
import TestSupport
import Testing

/// Parses JSON Lines output with Foundation, one object per non-empty line.
enum JSONLines {
    static func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
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
}
