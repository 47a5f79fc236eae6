import ContainerDemoKit
import Foundation
import Plugins
import TestSupport
import Testing

/// The demo keeps its database outside the working tree: `Configs/app.json` says `$data/app.sqlite`
/// and the demo supplies `data` (a temporary folder, or `--data-dir PATH`), printed first.
@Suite("The demo's data folder", .timeLimit(.minutes(1)))
struct DataFolderTests {
    /// The repository's `Configs/` (four levels above this file).
    static let configs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Configs").path
    static let appConfig = configs + "/app.json"

    /// The folder a run printed in its `data folder: PATH (...)` line, if any.
    private static func printedFolder(_ text: String) -> String? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("data folder: ") }),
            let end = line.range(of: " (the config's $data")
        else { return nil }
        return String(line[line.index(line.startIndex, offsetBy: "data folder: ".count)..<end.lowerBound])
    }

    private static func launches(in folder: String) throws -> Int {
        let database = try Database(path: folder + "/app.sqlite", migrations: [])
        defer { try? database.close() }
        return try database.query("SELECT COUNT(*) AS count FROM launches").first?["count"]?.int ?? -1
    }

    private func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let capture = CapturedOutput()
        let status = await DemoCommand.main(arguments, output: capture.output())
        return (status, capture.standardOutput, capture.standardError)
    }

    @Test("--data-dir: printed first, the database and its launch count go there, Configs/ is unchanged")
    func givenFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let data = folder.path + "/nested/data"  // created by the demo, parents included
        let before = try folderListing(Self.configs)

        let first = await run(["--config", Self.appConfig, "--data-dir", data])
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.hasPrefix("data folder: \(data) "), "printed before the trace")
        #expect(Self.printedFolder(first.out) == data)
        #expect(try Self.launches(in: data) == 1)
        let second = await run(["--config", Self.appConfig, "--data-dir", data])
        #expect(second.status == 0, "\(second.err)")
        #expect(second.out.contains("launch #2"))
        #expect(try Self.launches(in: data) == 2)

        #expect(try folderListing(Self.configs) == before, "the run wrote into Configs/")
    }

    @Test("the hint to choose another folder is printed only where --data-dir is taken")
    func hintOnlyWhereTaken() async throws {
        let config = await run(["--config", Self.appConfig])
        #expect(config.out.contains("(the config's $data; choose another with --data-dir PATH)"))
        let launch = await run(["--scenario", "launch"])
        #expect(launch.status == 0, "\(launch.err)")
        #expect(Self.printedFolder(launch.out) != nil && !launch.out.contains("--data-dir"))
        // The hint's advice is refused there: it would be a contradiction.
        #expect(await run(["--scenario", "launch", "--data-dir", "/tmp/x"]).status == 2)
    }

    @Test("by default the database goes to a temporary folder outside the repository")
    func defaultFolder() async throws {
        let before = try folderListing(Self.configs)
        let result = await run(["--config", Self.appConfig])
        #expect(result.status == 0, "\(result.err)")
        let printed = try #require(Self.printedFolder(result.out))
        #expect(printed == DemoDataFolder.defaultPath)
        let repository = URL(fileURLWithPath: Self.configs).deletingLastPathComponent().path
        #expect(!printed.hasPrefix(repository + "/"))
        #expect(printed.hasPrefix(URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path))
        #expect(try Self.launches(in: printed) >= 1)
        #expect(try folderListing(Self.configs) == before, "the run wrote into Configs/")
    }

    @Test("with a machine-readable trace the note goes to standard error; standard output stays JSON Lines")
    func noteStaysOutOfTheTrace() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = await run(["--config", Self.appConfig, "--data-dir", folder.path, "--trace", "jsonl"])
        #expect(result.status == 0, "\(result.err)")
        #expect(Self.printedFolder(result.err) == folder.path)
        #expect(Self.printedFolder(result.out) == nil)
        let lines = result.out.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(JSONLines.parse(result.out).count == lines.count, "every line of standard output is JSON")
    }

    @Test("a config that does not load: no note, and the data folder is not created")
    func brokenConfigTouchesNothing() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let config = try folder.write(
            "typo.json", #"{ "version": 1, "services": [{ "name": "a", "provider": "sqlit" }] }"#)
        let data = folder.path + "/data"
        let result = await run(["--config", config, "--data-dir", data])
        #expect(result.status == 2)
        #expect(result.out.isEmpty)
        #expect(!result.err.contains("data folder"))
        #expect(!FileManager.default.fileExists(atPath: data))
    }

    @Test("a data folder that cannot be created is a usage problem: 2, and nothing runs")
    func unusableFolder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("taken", "a file, not a folder")
        let result = await run(["--config", Self.appConfig, "--data-dir", file])
        #expect(result.status == 2)
        #expect(result.err.contains("cannot use '\(file)' as the data folder: it is a file"))
        #expect(!result.out.contains("snapshot"))
    }
}
