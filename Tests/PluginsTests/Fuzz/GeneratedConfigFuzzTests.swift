import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import TestSupport
import Testing

/// Configs made from scratch by a seeded generator: many services, random dependencies (cycles
/// included), secrets in options, scopes, groups, and overlays that add, remove, change and
/// reset (null) keys. Every rejected load must keep the promises of Configs/README.md
/// ("Errors": file, line:column inside the text, no raw control character, no secret).
@Suite("Fuzz: generated configs")
struct GeneratedConfigFuzzTests {
    static let providers = ["simulated", "simulatedNow", "sqlite", "configuration", "session", "input", "sqlit", ""]
    static let words = [
        "transient", "permanent", "transiant", "eager", "lazy", "deferred", "main", "high", "scene", "push",
        "\u{202E}evil", "a\u{0}b", "x\u{1B}[2Jy",
    ]

    struct Generated {
        var text: String
        var overlays: [String]
        var secrets: [String]
    }

    static func json(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func secret(_ random: inout SplitMix64) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        return "S" + String((0..<11).map { _ in random.pick(alphabet) })
    }

    static func generate(_ random: inout SplitMix64) -> Generated {
        let count = random.pick([1, 2, 5, 20, 200])
        let names = (0..<count).map { "svc\($0)" }
        var secrets: [String] = []
        var services: [String] = []
        for (index, name) in names.enumerated() {
            var members = ["\"name\": \(json(random.chance(3) ? random.pick(words) : name))"]
            let provider = random.chance(90) ? "simulated" : random.pick(providers)
            members.append("\"provider\": \(json(provider))")
            if random.chance(60) && count > 1 {
                let deps = (0..<random.int(1..<4)).map { _ in
                    random.chance(90) ? names[random.int(0..<count)] : random.pick(["group:g", "group:g?", "nope"])
                }
                members.append("\"dependsOn\": [\(deps.map(json).joined(separator: ", "))]")
            }
            if random.chance(40) {
                let secret = secret(&random)
                // The secret sits where a provider quotes a value when it rejects it (an outcome),
                // or in a free option.
                let key = random.pick(["outcomes", "apiKey", "token"])
                let value = key == "outcomes" ? "[\(json(secret))]" : json(secret)
                var options = ["\(json(key)): \(value)"]
                if random.chance(30) { options.append("\"durationMs\": \(random.pick(["5", "-1", "\"x\"", "1e9"]))") }
                members.append("\"options\": {\(options.joined(separator: ", "))}")
                let form = random.int(0..<6)
                // A malformed list (forms 0 and 1) is reported, and keeps the names it holds secret.
                secrets.append(secret)
                let listed: String =
                    switch form {
                    case 0: "[\(json(key)), 1]"
                    case 1: json(key)
                    case 2: "[\(json(key)), \(json(key))]"
                    case 3: "[\(json(key)), \"nope\"]"
                    default: "[\(json(key))]"
                    }
                members.append("\"secretOptions\": \(listed)")
            }
            if random.chance(10) { members.append("\"failure\": \(json(random.pick(words)))") }
            if random.chance(10) { members.append("\"start\": \(json(random.pick(words)))") }
            if random.chance(10) { members.append("\"scope\": \(json(random.pick(words)))") }
            if random.chance(10) { members.append("\"group\": \"g\"") }
            if random.chance(10) { members.append("\"optional\": \(random.chance(50))") }
            if random.chance(5) { members.append("\"sync\": true") }
            if random.chance(10) {
                members.append("\"retry\": \(random.pick(["3", "0", "101", "{}", "{\"maxAttempts\": 2}"]))")
            }
            if random.chance(10) { members.append("\"timeoutMs\": \(random.pick(["1", "0", "1e400", "3600001"]))") }
            if random.chance(3) { members.append("\"bogus\(index)\": 1") }
            services.append("    {" + members.joined(separator: ", ") + "}")
        }
        let scopes =
            random.chance(30) ? ",\n  \"scopes\": [\"scene\", {\"name\": \"push\", \"parent\": \"scene\"}]" : ""
        let text =
            "{\n  \"version\": 1\(scopes),\n  \"services\": [\n" + services.joined(separator: ",\n") + "\n  ]\n}\n"
        var overlays: [String] = []
        for _ in 0..<random.int(0..<3) {
            var entries: [String] = []
            for _ in 0..<random.int(1..<4) {
                let name = random.chance(85) ? names[random.int(0..<count)] : "svc\(count + random.int(0..<3))"
                switch random.int(0..<5) {
                case 0: entries.append("{\"name\": \(json(name)), \"remove\": true}")
                case 1:
                    entries.append(
                        "{\"name\": \(json(name)), \"add\": true, \"provider\": \"simulated\", \"dependsOn\": [\(json(names[0]))]}"
                    )
                case 2: entries.append("{\"name\": \(json(name)), \"dependsOn\": null, \"options\": null}")
                case 3:
                    let secret = secret(&random)
                    let listed = random.chance(50)
                    if listed { secrets.append(secret) }
                    entries.append(
                        "{\"name\": \(json(name)), \"options\": {\"outcomes\": [\(json(secret))]}, \"secretOptions\": "
                            + (listed ? "[\"outcomes\"]" : "null") + "}")
                default:
                    entries.append("{\"name\": \(json(name)), \"provider\": null, \"remove\": true, \"add\": true}")
                }
            }
            overlays.append("{\"version\": 1, \"services\": [\n" + entries.joined(separator: ",\n") + "\n]}")
        }
        return Generated(text: text, overlays: overlays, secrets: secrets)
    }

    @Test("generated configs with secrets, cycles and overlays: documented errors only")
    func generatedConfigs() async {
        var random = SplitMix64(seed: 0x5EC2_E75)
        let cases = Int(ProcessInfo.processInfo.environment["CONFIG_FUZZ_GENERATED_CASES"] ?? "") ?? 60
        var failures: [String: [String]] = [:]
        for number in 0..<cases {
            // A long synchronous loop would hold a thread of the test run's small pool.
            await Task.yield()
            let generated = Self.generate(&random)
            var texts = ["gen.json": Array(generated.text.utf8)]
            var overlays: [ConfigOverlay] = []
            for (index, overlay) in generated.overlays.enumerated() {
                texts["overlay\(index).json"] = Array(overlay.utf8)
                overlays.append(ConfigOverlay(file: "overlay\(index).json", text: overlay))
            }
            do {
                _ = try ConfigLoader.load(text: generated.text, file: "gen.json", overlays: overlays, registry: .demo)
            } catch {
                for problem in FuzzChecks.problems(of: error, texts: texts, secrets: generated.secrets) {
                    let kind = String(problem.prefix { $0 != ":" && $0 != "'" && !$0.isNumber })
                    failures[kind, default: []].append("case \(number): \(problem)")
                }
            }
        }
        for (kind, examples) in failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(examples.count)× \(kind): e.g. \(examples[0])")
        }
    }
}
