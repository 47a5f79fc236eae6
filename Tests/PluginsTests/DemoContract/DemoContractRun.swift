import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// Runs `container-demo` in-process on a config written to a fresh temporary folder.
enum DemoContractRun {
    struct Run {
        let status: Int32
        let out: String
        let err: String
        var events: [[String: Any]] { JSONLines.parse(out) }
        func events(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
    }

    static func run(
        config: String, _ arguments: [String], interrupt: DemoInterrupt = DemoInterrupt(),
        capture: CapturedOutput = CapturedOutput()
    ) async throws -> Run {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("demo-contract-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.json").path
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        let status = await DemoCommand.main(
            ["--config", path, "--data-dir", folder.appendingPathComponent("data").path] + arguments,
            output: capture.output(), interrupt: interrupt)
        return Run(status: status, out: capture.standardOutput, err: capture.standardError)
    }
}
