internal import Container
internal import Foundation

/// One parsed file of a load: the base config (document 0) or an overlay (1, 2, ... in the
/// order they apply).
struct ConfigDocument: Sendable {
    /// The path as given: what messages name.
    let file: String
    let root: PositionedValue
    /// The folder relative paths in this file's options start at.
    let baseDirectory: String
    /// Whether this is an overlay rather than the base config.
    let isOverlay: Bool

    /// Parses a file's bytes.
    /// - Throws: ``ConfigError`` for text that is not JSON or goes past a limit.
    static func parse(_ bytes: [UInt8], file: String, isOverlay: Bool) throws(ConfigError) -> ConfigDocument {
        let root: PositionedValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            let isLimit = error.kind == .limit
            throw ConfigError(
                file: file,
                issues: [
                    ConfigError.Issue(
                        code: isLimit ? .limitExceeded : .syntax,
                        message: isLimit ? error.message : "invalid JSON: \(error.message)",
                        location: ConfigLocation(file: file, line: error.position.line, column: error.position.column))
                ])
        }
        let baseDirectory = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
        return ConfigDocument(file: file, root: root, baseDirectory: baseDirectory, isOverlay: isOverlay)
    }
}

/// A value of a document being read, and how to name it in a message: the key path is built
/// only for a message, not for every value of a valid file.
struct Field {
    let node: PositionedValue
    /// The document it is in (0: the base config).
    let document: Int
    /// The key path of the object or array holding it (`services[2]`), or `""` at the top.
    let parent: String
    /// Its key in that object, or `[i]` in an array; `""` for the top-level object itself.
    let key: String

    /// `services[2].retry`, `entryPoints[1]`.
    var path: String { KeyPath.join(parent, key) }

    /// A value inside this one: `key` (a member) or `[i]` (an element).
    func child(_ node: PositionedValue, key: String) -> Field {
        Field(node: node, document: document, parent: path, key: key)
    }
}

/// The first value of each allowed key of one object, stored by the key's index in the
/// allowed list: a few string compares instead of a dictionary per object.
struct Fields {
    let allowed: [String]
    var values: [Field?]

    subscript(key: String) -> Field? {
        get {
            guard let slot = allowed.slot(of: key) else { return nil }
            return values[slot]
        }
        set {
            guard let slot = allowed.slot(of: key) else { return }
            values[slot] = newValue
        }
    }
}

/// Key paths as the loader writes them: `services[2].dependsOn[0]`.
enum KeyPath {
    /// `base` followed by `child`: a key (`retry`, `.retry`) or an index (`[0]`).
    static func join(_ base: String, _ child: String) -> String {
        if child.isEmpty { return base }
        let isIndex = child.hasPrefix("[")
        let component = child.hasPrefix(".") ? String(child.dropFirst()) : child
        if base.isEmpty { return component }
        return isIndex ? base + component : base + "." + component
    }
}

extension [String] {
    /// The index of `key` in a list of allowed keys. Keys of different lengths are told apart by
    /// their UTF-8 counts, which a small string keeps inline: most compares never look at bytes.
    func slot(of key: String) -> Int? {
        let length = key.utf8.count
        return firstIndex { $0.utf8.count == length && $0 == key }
    }
}
