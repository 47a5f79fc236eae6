import Container
import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// Configs/README.md, `secretOptions`: "names of `options` whose values are secrets ...: redacted
/// from traces, errors and `description`, whole and in fragments". A `secretOptions` list with
/// one malformed entry (reported as wrongType) drops the redaction of the names it does list.
struct SecretOptionsRedactionTests {
    private let secret = "Zq9Xk2Wm7Rt4"

    private func message(_ text: String) -> String {
        do {
            _ = try ConfigLoader.load(text: text, file: "t.json")
        } catch {
            return error.description
        }
        Issue.record("expected the config to be rejected")
        return ""
    }

    @Test("control: with a well-formed secretOptions the rejected secret outcome is redacted")
    func wellFormedSecretOptionsRedacts() {
        let text = message(
            #"{"version":1,"services":[{"name":"a","provider":"simulated","options":{"outcomes":[""# + secret
                + #""]},"secretOptions":["outcomes"]}]}"#)
        #expect(!text.contains(secret), "\(text)")
    }

    @Test("a secretOptions list with one non-string entry still keeps the listed option's value out of errors")
    func malformedEntryKeepsRedaction() {
        let text = message(
            #"{"version":1,"services":[{"name":"a","provider":"simulated","options":{"outcomes":[""# + secret
                + #""]},"secretOptions":["outcomes", 1]}]}"#)
        #expect(text.contains("secretOptions[1]"), "the malformed entry is reported: \(text)")
        #expect(!text.contains(secret), "the secret is printed: \(text)")
    }

    @Test("a secret that is also an option's name: the message redacts it, the key path on the same line must too")
    func keyPathKeepsSecretOut() {
        // The value of `token` (a secret) is also written as an option name the provider rejects.
        let text = message(
            #"{"version":1,"services":[{"name":"a","provider":"simulated","options":{"token":""# + secret + #"",""#
                + secret + #"":1},"secretOptions":["token"]}]}"#)
        #expect(text.contains("<redacted>"), "the message redacts it: \(text)")
        #expect(!text.contains(secret), "the key path shows it: \(text)")
    }
}
