/// Where something was declared: a config file and a place inside it.
///
/// Errors carry a location so that a person can go straight to the line to fix.
/// Services declared in code have a location naming the Swift source instead.
public struct ConfigLocation: Sendable, Hashable, CustomStringConvertible {
    /// The config file's path (or a Swift source file for services declared in code).
    public var file: String?
    /// The key path inside the file, e.g. `services[2].dependsOn`.
    public var keyPath: String?
    /// 1-based line, when known.
    public var line: Int?
    /// 1-based column, when known.
    public var column: Int?

    /// Creates a location; every part is optional.
    public init(file: String? = nil, keyPath: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.keyPath = keyPath
        self.line = line
        self.column = column
    }

    /// `file:line:column: keyPath`, leaving out what is unknown (an empty key path too); control
    /// characters of a file name or key written as `\u{…}` escapes (a message is one line, and
    /// never drives a terminal).
    public var description: String {
        var parts: [String] = []
        if let file {
            var place = NameRules.escapingControlCharacters(file)
            if let line {
                place += ":\(line)"
                if let column { place += ":\(column)" }
            }
            parts.append(place)
        } else if let line {
            parts.append("line \(line)" + (column.map { ", column \($0)" } ?? ""))
        }
        if let keyPath, !keyPath.isEmpty { parts.append(NameRules.escapingControlCharacters(keyPath)) }
        return parts.joined(separator: ": ")
    }

    /// The same location with `child` appended to the key path (`services[1]` + `dependsOn`).
    public func appending(_ child: String) -> ConfigLocation {
        var copy = self
        if let keyPath, !keyPath.isEmpty {
            copy.keyPath = child.hasPrefix("[") ? keyPath + child : keyPath + "." + child
        } else {
            copy.keyPath = child
        }
        return copy
    }
}
