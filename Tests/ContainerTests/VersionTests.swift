import Container
import Foundation
import Testing

/// The version lives in `ServiceContainer.Version.current`; the changelog's latest release and the
/// README's `.package(..., from:)` line must say the same.
@Suite("Version, changelog and license")
struct VersionTests {
    /// The package root (two levels above `Tests/ContainerTests`).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func read(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("the version is major.minor.patch")
    func semanticVersion() {
        #expect(ServiceContainer.Version.current.wholeMatch(of: /\d+\.\d+\.\d+/) != nil)
    }

    @Test("CHANGELOG.md: an Unreleased section, then the latest release is ServiceContainer.Version.current")
    func changelogAgrees() throws {
        let headings = try Self.read("CHANGELOG.md").split(separator: "\n").filter { $0.hasPrefix("## ") }
        #expect(headings.first == "## [Unreleased]")
        let release = try #require(headings.dropFirst().first)
        let version = try #require(release.firstMatch(of: /^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/))
        #expect(String(version.1) == ServiceContainer.Version.current)
    }

    @Test("the README's .package line pins ServiceContainer.Version.current")
    func readmeAgrees() throws {
        let readme = try Self.read("README.md")
        let pins = readme.matches(of: /\.package\(url: "[^"]+", from: "([^"]+)"\)/).map { String($0.1) }
        #expect(!pins.isEmpty)
        #expect(pins.allSatisfy { $0 == ServiceContainer.Version.current }, "\(pins)")
    }

    @Test("LICENSE is the Apache License 2.0 with the authors' copyright")
    func license() throws {
        let license = try Self.read("LICENSE")
        #expect(license.hasPrefix("Copyright 2026 The ServiceContainer authors\n"))
        #expect(license.contains("Apache License\n                           Version 2.0, January 2004"))
        #expect(license.contains("END OF TERMS AND CONDITIONS"))
    }
}
