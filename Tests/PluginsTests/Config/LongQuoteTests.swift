import Container
import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// Configs/README.md, "Errors": "Text from the file that a message quotes (keys, names, words)
/// has its control characters shown as `\u{…}` escapes, and long names are shortened." Each
/// test quotes one long piece of text through a path that still prints it whole.
struct LongQuoteTests {
    private let long = String(repeating: "k", count: 3_000)

    private func issues(_ text: String, overlays: [String] = [], registry: ProviderRegistry = .standard)
        -> [ConfigError.Issue]
    {
        do {
            _ = try ConfigLoader.load(
                text: text, file: "t.json",
                overlays: overlays.enumerated().map { ConfigOverlay(file: "o\($0.offset).json", text: $0.element) },
                registry: registry)
        } catch {
            return error.issues
        }
        Issue.record("expected the config to be rejected")
        return []
    }

    /// Every issue line stays far shorter than the 3,000-character text it is about.
    private func expectShortened(
        _ text: String, overlays: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let found = issues(text, overlays: overlays)
        #expect(!found.isEmpty, sourceLocation: sourceLocation)
        for issue in found {
            let line = issue.description
            #expect(
                line.count < 1_000, "\(line.count) characters: \(line.prefix(200))…", sourceLocation: sourceLocation)
        }
    }

    @Test("an unknown failure kind is quoted shortened (a service's failure)")
    func longFailureKind() {
        expectShortened(#"{"version":1,"services":[{"name":"a","provider":"simulated","failure":""# + long + #""}]}"#)
    }

    @Test("an unknown failure kind is quoted shortened (policy.unclassifiedFailure)")
    func longUnclassifiedFailure() {
        expectShortened(#"{"version":1,"policy":{"unclassifiedFailure":""# + long + #""},"services":[]}"#)
    }

    @Test("a service without a provider: its long name is quoted shortened")
    func missingProviderLongName() {
        expectShortened(#"{"version":1,"services":[{"name":""# + long + #""}]}"#)
    }

    @Test("secretOptions naming no option: the service's long name is quoted shortened")
    func secretOptionsLongServiceName() {
        expectShortened(
            #"{"version":1,"services":[{"name":""# + long + #"","provider":"simulated","secretOptions":["nope"]}]}"#)
    }

    @Test("an input without a value type: its long name is quoted shortened")
    func inputLongName() {
        expectShortened(#"{"version":1,"services":[{"name":""# + long + #"","provider":"input"}]}"#)
    }

    @Test("an overlay that both adds and removes a service: its long name is quoted shortened")
    func overlayAddAndRemoveLongName() {
        expectShortened(
            #"{"version":1,"services":[{"name":"a","provider":"simulated"}]}"#,
            overlays: [#"{"version":1,"services":[{"name":""# + long + #"","add":true,"remove":true}]}"#])
    }

    @Test("an overlay that removes a service and changes a key: its long name is quoted shortened")
    func overlayRemoveWithKeysLongName() {
        // The config declares the long name (reported as too long), the overlay removes it and
        // also gives a timeout.
        expectShortened(
            #"{"version":1,"services":[{"name":""# + long + #"","provider":"simulated"}]}"#,
            overlays: [#"{"version":1,"services":[{"name":""# + long + #"","remove":true,"timeoutMs":5}]}"#])
    }

    @Test("an overlay that adds a service the config declares: its long name is quoted shortened")
    func overlayAddDeclaredLongName() {
        expectShortened(
            #"{"version":1,"services":[{"name":""# + long + #"","provider":"simulated"}]}"#,
            overlays: [#"{"version":1,"services":[{"name":""# + long + #"","add":true,"provider":"simulated"}]}"#])
    }

    @Test("an unknown entry point id of 256 bytes (a valid name) is quoted shortened, as every other name")
    func unknownEntryPointIsShortened() throws {
        let id = String(repeating: "e", count: 256)
        let found = issues(#"{"version":1,"services":[],"entryPoints":[""# + id + #""]}"#, registry: .demo)
        let issue = try #require(found.first { $0.code == .unknownEntryPoint })
        // Everywhere else a quoted name is at most 64 characters, then "…".
        #expect(!issue.message.contains(id), "quoted whole: \(issue.message.prefix(120))…")
    }
}

extension LongQuoteTests {
    @Test("an unknown simulated outcome is quoted shortened")
    func longOutcomeWord() {
        let long = String(repeating: "o", count: 3_000)
        let text =
            #"{"version":1,"services":[{"name":"a","provider":"simulated","options":{"outcomes":[""#
            + long + #""]}}]}"#
        do {
            _ = try ConfigLoader.load(text: text, file: "t.json")
            Issue.record("expected the config to be rejected")
        } catch {
            for issue in error.issues {
                #expect(
                    issue.description.count < 1_000,
                    "\(issue.description.count) characters: \(issue.description.prefix(200))…")
            }
        }
    }
}

extension LongQuoteTests {
    private func expectLinesShort(
        _ text: String, registry: ProviderRegistry, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            _ = try ConfigLoader.load(text: text, file: "t.json", registry: registry, pathRoots: ["data": "/tmp"])
            Issue.record("expected the config to be rejected", sourceLocation: sourceLocation)
        } catch {
            for issue in error.issues {
                #expect(
                    issue.description.count < 1_000,
                    "\(issue.description.count) characters: \(issue.description.prefix(200))…",
                    sourceLocation: sourceLocation)
            }
        }
    }

    @Test("an unknown key in a sqlite migration is quoted shortened")
    func longMigrationKey() {
        let long = String(repeating: "m", count: 3_000)
        expectLinesShort(
            #"{"version":1,"services":[{"name":"db","provider":"sqlite","options":{"path":":memory:","migrations":"#
                + #"[{"version":1,"name":"a","sql":"SELECT 1;",""# + long + #"":1}]}}]}"#, registry: .standard)
    }

    @Test("an undeclared parent scope is quoted shortened")
    func longParentScope() {
        let long = String(repeating: "p", count: 3_000)
        expectLinesShort(
            #"{"version":1,"scopes":["a",{"name":"b","parent":""# + long + #""}],"services":[]}"#, registry: .standard)
    }
}
