import ContainerDemoKit
import Foundation
import Testing

/// `container-demo --overlay FILE` (repeatable): the shipped test overlay runs the demo on an
/// in-memory database, overlays apply in order, and an overlay's mistakes are reported in it.
@Suite("The demo's --overlay", .timeLimit(.minutes(1)))
struct OverlayRunTests {
    /// The repository's `Configs/` (four levels above this file).
    static let configs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Configs").path
    static let appConfig = configs + "/app.json"
    static let testOverlay = configs + "/overlays/test.json"
    static let offlineOverlay = configs + "/overlays/offline.json"

    private func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
        let capture = CapturedOutput()
        let status = await DemoCommand.main(arguments + ["--no-color"], output: capture.output())
        return (status, capture.standardOutput, capture.standardError)
    }

    /// Each file of `folder` with its bytes and modification date: what a run must not change.
    private static func state(of folder: String) throws -> [String: (bytes: Data, modified: Date?)] {
        var result: [String: (bytes: Data, modified: Date?)] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            result[name] = (try Data(contentsOf: URL(fileURLWithPath: path)), modified)
        }
        return result
    }

    @Test("the test overlay runs on :memory: with its known session; the data folder's app.sqlite is untouched")
    func testOverlayLeavesTheDatabaseAlone() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let data = folder.path + "/data"
        // A database from an ordinary run: the overlay's run must not open it.
        let ordinary = await run(["--config", Self.appConfig, "--data-dir", data])
        #expect(ordinary.status == 0, "\(ordinary.err)")
        #expect(ordinary.out.contains("launch #1, signed in as ada"))
        let before = try Self.state(of: data)
        #expect(before["app.sqlite"] != nil)

        let overlaid = await run(["--config", Self.appConfig, "--overlay", Self.testOverlay, "--data-dir", data])
        #expect(overlaid.status == 0, "\(overlaid.err)")
        #expect(overlaid.out.contains("overlays: \(Self.testOverlay) (in this order)"))
        #expect(overlaid.out.contains("launch #1, signed in as test-user"), "a new in-memory database each run")
        #expect(overlaid.out.contains("push → push: A-17: Your order has shipped, for test-user"))
        let after = try Self.state(of: data)
        #expect(Set(after.keys) == Set(before.keys))
        for (name, file) in before {
            #expect(after[name]?.bytes == file.bytes, "\(name) changed")
            #expect(after[name]?.modified == file.modified, "\(name) was written")
        }

        // In a fresh data folder, no database file appears at all.
        let fresh = folder.path + "/fresh"
        let again = await run(["--config", Self.appConfig, "--overlay", Self.testOverlay, "--data-dir", fresh])
        #expect(again.status == 0, "\(again.err)")
        #expect(!FileManager.default.fileExists(atPath: fresh + "/app.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fresh).isEmpty)
    }

    @Test("overlays apply in the order given: the last one to set an option wins")
    func overlaysApplyInOrder() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for name in ["Alpha", "Beta"] {
            _ = try folder.write("\(name).settings.json", #"{ "appName": "\#(name)", "environment": "test" }"#)
            _ = try folder.write(
                "\(name).json",
                #"{ "version": 1, "services": [ { "name": "configuration", "options": { "path": "\#(name).settings.json" } } ] }"#
            )
        }
        let alpha = folder.path + "/Alpha.json"
        let beta = folder.path + "/Beta.json"
        let common = ["--config", Self.appConfig, "--overlay", Self.testOverlay, "--data-dir", folder.path + "/d"]
        let forward = await run(common + ["--overlay", alpha, "--overlay", beta])
        #expect(forward.status == 0, "\(forward.err)")
        #expect(forward.out.contains("launch: Beta (test)"))
        let backward = await run(common + ["--overlay", beta, "--overlay", alpha])
        #expect(backward.status == 0, "\(backward.err)")
        #expect(backward.out.contains("launch: Alpha (test)"))
    }

    @Test("the offline overlay: offline settings, failFast")
    func offlineOverlay() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let result = await run([
            "--config", Self.appConfig, "--overlay", Self.offlineOverlay, "--overlay", Self.testOverlay, "--data-dir",
            folder.path,
        ])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("launch: Demo (offline)"))
    }

    @Test("a typo'd service name or key in an overlay: its file, line, column and suggestion; exit 2")
    func typoInAnOverlay() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let overlay = try folder.write(
            "typo.json",
            """
            { "version": 1,
              "services": [ { "name": "databse", "options": { "path": ":memory:" } },
                            { "name": "session", "timeouMs": 5 } ] }
            """)
        let data = folder.path + "/data"
        let result = await run(["--config", Self.appConfig, "--overlay", overlay, "--data-dir", data])
        #expect(result.status == 2)
        #expect(result.out.isEmpty)
        #expect(
            result.err == """
                \(overlay):2:27: services[0].name: changes service 'databse', which the config does not declare; did \
                you mean 'database'? (to declare a new service, add "add": true)
                \(overlay):3:38: services[1].timeouMs: unknown key 'timeouMs'; did you mean 'timeoutMs'?

                """)
        #expect(!FileManager.default.fileExists(atPath: data), "nothing ran")
    }

    @Test("--overlay is repeatable, needs a config run, and is in --help")
    func parsing() throws {
        let options = try DemoCommand.parse(["--overlay", "a.json", "--overlay=b.json", "--config", "c.json"])
        #expect(options.overlayPaths == ["a.json", "b.json"])
        #expect(options.configPath == "c.json")
        #expect(try DemoCommand.parse([]).overlayPaths.isEmpty)
        #expect(throws: UsageError.self) { try DemoCommand.parse(["--overlay", "a.json", "--scenario", "logout"]) }
        #expect(throws: UsageError.self) { try DemoCommand.parse(["--overlay="]) }
        #expect(DemoCommand.usage.contains("--overlay FILE"))
        #expect(DemoCommand.usage.contains("Configs/overlays/test.json"))
    }
}
