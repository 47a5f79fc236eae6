import ContainerDemoKit
import Foundation
import TestSupport
import Testing

/// `--config A --reload B` keeps the runtime's invariants with any pair: reloading the shipped
/// `permanent.json` into a container whose `transient.json` generation used its one allowed
/// attempt (its values retired at once) must not report them carried over.
@Suite("Demo: --reload after a failed generation", .timeLimit(.minutes(1)))
struct ReloadAfterFailureDemoTests {
    @Test("the demo's own invariant checks hold for --config transient.json --reload permanent.json")
    func reloadAfterExhaustedGenerationKeepsTheInvariants() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let capture = CapturedOutput()
        let status = await DemoCommand.main(
            [
                "--config", RepositoryPaths.config("transient.json"), "--reload",
                RepositoryPaths.config("permanent.json"), "--data-dir", folder.path, "--no-color",
            ], output: capture.output())
        #expect(status == 1, "permanent.json's build fails: exit 1")
        let all = capture.standardOutput + capture.standardError
        #expect(
            !all.contains("broke the runtime's invariants"), "\(all.split(separator: "\n").filter { $0.contains("✗") })"
        )
        #expect(!all.contains("✗ carried-over services are neither rebuilt nor torn down by the reload"))
    }
}
