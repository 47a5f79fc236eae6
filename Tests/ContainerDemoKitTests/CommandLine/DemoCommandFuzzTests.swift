import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import TestSupport
import Testing

/// Random argument lists for the demo's parser (README.md, "EXIT STATUS": 2 for invalid usage):
/// parsing returns options or throws a UsageError, one line naming the bad argument, never a crash.
@Suite("Fuzz: command line fuzz")
struct DemoCommandFuzzTests {
    static let options = [
        "--config", "--overlay", "--data-dir", "--scenario", "--trace", "--callers", "--retries", "--output",
        "--reload", "--no-color", "--help", "-h", "--version", "--status",
    ]
    static let values = [
        "", "x.json", "Configs/app.json", "cold-start", "logout", "reload", "all", "jsonl", "dot", "perfetto", "0",
        "-1", "100001", "999", "1000", "+5", "9999999999999999999999", "1e3", " 3", "--", "-", "=", "a=b",
        "\u{1B}[2J", "\u{0}", "\u{202E}x", "é", String(repeating: "y", count: 3_000),
    ]

    static func argument(_ random: inout SplitMix64) -> String {
        switch random.int(0..<6) {
        case 0, 1: random.pick(options)
        case 2: random.pick(options) + "=" + random.pick(values)
        case 3: random.pick(values)
        case 4: "--" + random.pick(values)
        default: String(random.pick(options).dropLast(random.int(0..<3))) + random.pick(["", "x", "-", "_"])
        }
    }

    @Test("random argument lists: options or a one-line UsageError, never a crash")
    func randomArguments() async {
        var random = SplitMix64(seed: 0xC11)
        var failures: [String: String] = [:]
        var errors = 0
        let cases = 5_000
        for number in 0..<cases {
            // A long synchronous loop would hold a thread of the test run's small pool.
            if number % 100 == 0 { await Task.yield() }
            let arguments = (0..<random.int(0..<6)).map { _ in Self.argument(&random) }
            do {
                _ = try DemoCommand.parse(arguments)
            } catch {
                errors += 1
                let message = error.message
                if message.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    failures["control"] =
                        "raw control character: \(arguments.debugDescription) -> \(message.debugDescription)"
                }
                // (A long argument is quoted whole, twice for a stray one: the README promises
                // no shortening for the command line, so length is not checked here.)
                // The message names an argument of the list (or a part of one: its name before '=').
                let named = arguments.contains { argument in
                    let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
                    return (argument.isEmpty && (message.contains("''") || message.contains("empty argument")))
                        || (!argument.isEmpty
                            && message.contains(NameRules.escapingControlCharacters(argument).prefix(60)))
                        || (!name.isEmpty && message.contains(NameRules.escapingControlCharacters(name).prefix(60)))
                }
                if !named {
                    let key = String(message.prefix(25))
                    failures[key] = failures[key] ?? "names no argument: \(arguments.debugDescription) -> \(message)"
                }
            }
        }
        for (_, example) in failures.sorted(by: { $0.key < $1.key }) { Issue.record("\(example)") }
        #expect(errors > 0)
    }
}
