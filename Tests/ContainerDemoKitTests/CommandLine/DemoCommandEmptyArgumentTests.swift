import Container
import ContainerDemoKit
import Testing

/// An empty argument is a usage error that says so; it is not told to become `--config ''`,
/// which is a usage error itself.
struct DemoCommandEmptyArgumentTests {
    @Test("an empty argument is not told to become '--config ', which is itself a usage error")
    func emptyArgumentSuggestionIsValid() throws {
        let error = #expect(throws: UsageError.self) { _ = try DemoCommand.parse(["--callers", "2", ""]) }
        #expect(error?.message.contains("'--config '") == false, "\(String(describing: error))")
        #expect(error?.message.contains("empty argument") == true)
        #expect(throws: UsageError.self, "an empty --config is refused") {
            _ = try DemoCommand.parse(["--config", ""])
        }
    }
}
