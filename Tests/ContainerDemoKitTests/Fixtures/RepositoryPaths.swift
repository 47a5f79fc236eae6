import Foundation

/// Files of the repository, found from this file's place (the tests may run from any folder).
enum RepositoryPaths {
    /// The repository's root (three levels above this file).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `Configs/<name>`.
    static func config(_ name: String) -> String { root.appendingPathComponent("Configs/" + name).path }
}
