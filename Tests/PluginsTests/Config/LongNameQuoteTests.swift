import Container
import Foundation
import Plugins
import Testing

/// Configs/README.md ("Errors"): text from the file that a message quotes has its control
/// characters escaped, and long names are shortened: also the root of a `$name/` path, a
/// `dependsOn` written as one string, and the option names a provider rejects (in the message and
/// in the key path).
struct LongNameQuoteTests {
    private let long = String(repeating: "k", count: 3_000)

    private func issues(_ text: String) -> [ConfigError.Issue] {
        do {
            _ = try ConfigLoader.load(text: text, file: "t.json", pathRoots: ["data": "/tmp"])
        } catch {
            return error.issues
        }
        Issue.record("expected the config to be rejected")
        return []
    }

    /// Every quote of the long name is cut: the issue stays far shorter than the name.
    private func expectShortened(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for issue in issues(text) {
            let line = issue.description
            #expect(
                line.count < 1_000, "\(line.count) characters: \(line.prefix(160))…",
                sourceLocation: sourceLocation)
        }
    }

    @Test("an unknown path root's long name is quoted shortened")
    func pathRootName() {
        expectShortened(
            #"{"version":1,"services":[{"name":"a","provider":"sqlite","options":{"path":"$"# + long + #"/x"}}]}"#)
    }

    @Test("a dependsOn written as one long string is quoted shortened in the fix")
    func singleStringDependency() {
        expectShortened(#"{"version":1,"services":[{"name":"a","provider":"simulated","dependsOn":""# + long + #""}]}"#)
    }

    @Test("an option name a provider rejects is quoted shortened, in the key path and the message")
    func rejectedOptionName() {
        expectShortened(
            #"{"version":1,"services":[{"name":"a","provider":"simulated","options":{""# + long + #"":1}}]}"#)
    }
}
