import TestSupport
import Testing

@Suite("Test support")
struct SupportTests {
    @Test("withTimeout fails a wait that never ends instead of hanging")
    func timeoutFires() async {
        let gate = Gate()  // never opened, and its wait ignores cancellation
        await withKnownIssue("the deadline records an issue") {
            try await withTimeout(0.2, "a gate nobody opens") { await gate.wait() }
        }
        gate.open()
    }
}
