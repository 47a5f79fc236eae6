import Container
import Foundation
import Plugins
import Testing

/// A missing dependency's "did you mean" is the fix the message offers: never the dependent
/// itself, which would be a cycle.
struct DependencySuggestionTests {
    @Test("a missing dependency is never 'fixed' by suggesting the dependent itself")
    func suggestionIsNotTheDependentItself() throws {
        let text = """
            { "version": 1, "services": [
              { "name": "b", "provider": "simulated", "dependsOn": ["a"] }
            ] }
            """
        var message = ""
        do {
            _ = try ConfigLoader.load(text: text, file: "t.json")
            Issue.record("expected a missingDependency error")
        } catch {
            #expect(error.codes == [.missingDependency])
            message = error.issues.first?.message ?? ""
        }
        #expect(!message.contains("did you mean 'b'"), "\(message)")

        // Following the suggestion is a cycle error.
        let followed = text.replacingOccurrences(of: #"["a"]"#, with: #"["b"]"#)
        do {
            _ = try ConfigLoader.load(text: followed, file: "t.json")
        } catch {
            #expect(error.codes == [.cycle])
        }
    }
}
