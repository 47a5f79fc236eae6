import Container
import ContainerDemoKit
import ContainerTesting
import Foundation
import Plugins
import TestSupport
import Testing

/// A seeded, deterministic fuzz run over the shipped configs (Configs/README.md, "Errors" and
/// "Limits"): every mutated file loads or throws a ConfigError whose issues name the file, a
/// line and column inside the text, hold no raw control character, no line over 1,000
/// characters, no secret; and a rejected file costs about what a valid one costs.
@Suite("Fuzz: config loader fuzz")
struct ConfigFuzzTests {
    static let seeds = [
        "app.json", "transient.json", "permanent.json", "startup-simulated.json", "launch.json", "broken.json",
        "accounts.json", "reload/v1.json", "reload/v2.json",
    ]
    static let overlaySeeds = ["overlays/test.json", "overlays/offline.json"]

    /// Tokens a mutation inserts.
    static let tokens: [[UInt8]] = [
        Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array(",".utf8), Array(":".utf8),
        Array("\"".utf8), Array("null".utf8), Array("true".utf8), Array("1e999".utf8), Array("-0".utf8),
        Array("123456789012345678901234567890".utf8), Array("-1e-400".utf8), Array(#""\ud800""#.utf8),
        Array(#""\udc00\ud800""#.utf8), Array(#""\u0000""#.utf8), Array(#""\u001b[2J""#.utf8), [0xEF, 0xBB, 0xBF],
        [0xC0, 0x80], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x00], [0x0D], [0x1B],
        Array("\u{202E}".utf8), Array("\u{200F}".utf8), Array("\u{85}".utf8), Array(#""a": 1,"#.utf8),
        Array(#""name": "x","#.utf8), Array(#""version": 2,"#.utf8), Array(#""failure": "transiant","#.utf8),
        Array(#""dependsOn": ["session"],"#.utf8), Array(#""scope": "scene","#.utf8), Array("/* c */".utf8),
        Array("'x'".utf8), Array("\t".utf8), Array("NaN".utf8), Array("Infinity".utf8),
        Array(#""secretOptions": ["apiKey", 1],"#.utf8), Array(#""retry": 1000,"#.utf8),
        Array(#""timeoutMs": 1e308,"#.utf8), Array(#""start": "lazzy","#.utf8),
    ]

    static func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: PackagePaths.configs.appendingPathComponent(name)))
    }

    /// One random change to `bytes`.
    static func mutate(_ bytes: inout [UInt8], _ random: inout SplitMix64) {
        let count = bytes.count
        switch random.int(0..<11) {
        case 0 where count > 0:  // delete a byte range
            let start = random.int(0..<count)
            bytes.removeSubrange(start..<min(count, start + random.int(1..<8)))
        case 1 where count > 0:  // duplicate a range
            let start = random.int(0..<count)
            let end = min(count, start + random.int(1..<64))
            bytes.insert(contentsOf: bytes[start..<end], at: random.int(0..<count))
        case 2 where count > 1:  // swap two bytes
            let a = random.int(0..<count)
            let b = random.int(0..<count)
            bytes.swapAt(a, b)
        case 3:  // insert a token
            bytes.insert(contentsOf: random.pick(tokens), at: random.int(0..<(count + 1)))
        case 4:  // deep nesting at a value position
            let depth = random.int(55..<80)
            let at = valuePosition(bytes, &random) ?? random.int(0..<(count + 1))
            bytes.insert(
                contentsOf: Array(repeating: UInt8(ascii: "["), count: depth)
                    + Array(repeating: UInt8(ascii: "]"), count: random.chance(80) ? depth : depth - 1), at: at)
        case 5:  // a long string in place of a string
            guard let quote = stringStart(bytes, &random) else { fallthrough }
            let length = random.pick([300, 2_000, 70_000])
            let piece: [UInt8] = random.pick([
                Array("a".utf8), Array("é".utf8), Array(#"\u0007"#.utf8), Array("x_y".utf8),
            ])
            var long: [UInt8] = []
            while long.count < length { long += piece }
            bytes.insert(contentsOf: long, at: quote + 1)
        case 6:  // a huge or odd number
            let at = valuePosition(bytes, &random) ?? random.int(0..<(count + 1))
            let number = random.pick([
                "99999999999999999999999", "1e400", "-1e400", "0.0000000000001", "9223372036854775808",
                "-9223372036854775809", String(repeating: "9", count: 5_000),
                "1." + String(repeating: "0", count: 3_000),
            ])
            bytes.insert(contentsOf: Array((number + ",").utf8), at: at)
        case 7:  // delete / duplicate / swap a line
            var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
            guard lines.count > 1 else { fallthrough }
            let a = random.int(0..<lines.count)
            let b = random.int(0..<lines.count)
            switch random.int(0..<3) {
            case 0: lines.remove(at: a)
            case 1: lines.insert(lines[a], at: b)
            default: lines.swapAt(a, b)
            }
            bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
        case 8:  // change line endings
            bytes = bytes.flatMap { $0 == UInt8(ascii: "\n") ? random.pick([[0x0D], [0x0D, 0x0A], [0x0A]]) : [$0] }
        case 9:  // truncate
            bytes = Array(bytes.prefix(random.int(0..<(count + 1))))
        default:  // random bytes
            for _ in 0..<random.int(1..<4) where !bytes.isEmpty {
                bytes[random.int(0..<bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            }
        }
    }

    /// Just after a `: ` (a member's value), or nil.
    static func valuePosition(_ bytes: [UInt8], _ random: inout SplitMix64) -> Int? {
        let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
        guard !colons.isEmpty else { return nil }
        var at = random.pick(colons) + 1
        while at < bytes.count, bytes[at] == UInt8(ascii: " ") { at += 1 }
        return at
    }

    /// The opening quote of some string, or nil.
    static func stringStart(_ bytes: [UInt8], _ random: inout SplitMix64) -> Int? {
        let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
        return quotes.isEmpty ? nil : random.pick(quotes)
    }

    @Test("mutated shipped configs and overlays: ConfigError with good places and messages, no crash")
    func mutatedConfigs() async throws {
        var random = SplitMix64(seed: 0x6B_75_6E_74_36)
        let seeds = try Self.seeds.map { ($0, try Self.read($0)) }
        let overlays = try Self.overlaySeeds.map { ($0, try Self.read($0)) }
        let cases = Int(ProcessInfo.processInfo.environment["CONFIG_FUZZ_CASES"] ?? "") ?? 300
        var failures: [String: [String]] = [:]
        var loaded = 0
        var rejected = 0
        for number in 0..<cases {
            // A long synchronous loop would hold a thread of the test run's small pool.
            await Task.yield()
            let (name, seed) = random.pick(seeds)
            var bytes = seed
            for _ in 0..<random.int(1..<4) { Self.mutate(&bytes, &random) }
            var overlayList: [ConfigOverlay] = []
            var texts = ["Configs/" + name: bytes]
            if random.chance(25) {
                let (overlayName, overlaySeed) = random.pick(overlays)
                var overlayBytes = overlaySeed
                for _ in 0..<random.int(0..<3) { Self.mutate(&overlayBytes, &random) }
                overlayList.append(ConfigOverlay(file: "Configs/" + overlayName, data: Data(overlayBytes)))
                texts["Configs/" + overlayName] = overlayBytes
            }
            do {
                _ = try ConfigLoader.load(
                    data: Data(bytes), file: "Configs/" + name, overlays: overlayList, registry: .demo,
                    pathRoots: ["data": "/app-data"])
                loaded += 1
            } catch {
                rejected += 1
                for problem in FuzzChecks.problems(of: error, texts: texts) {
                    // One example per kind of problem (the text before the first quote or digit).
                    let kind = String(problem.prefix { $0 != ":" && $0 != "'" && !$0.isNumber })
                    failures[kind, default: []].append("case \(number) (\(name)): \(problem)")
                }
            }
        }
        for (kind, examples) in failures.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(examples.count)× \(kind): e.g. \(examples[0])")
        }
        #expect(loaded + rejected == cases)
    }
}

/// Systematic: each string of each shipped config (values and keys, one at a time) replaced by
/// a 3,000-character one, with and without control characters. "Long names are shortened":
/// no message line may quote it whole.
@Suite("Fuzz: every string made long")
struct LongStringSweepTests {
    @Test("each string replaced by a long one: no issue line over 1,000 characters, no raw control character")
    func eachStringMadeLong() async throws {
        var failures: [String: String] = [:]
        var cases = 0
        let app = try Data(contentsOf: PackagePaths.configs.appendingPathComponent("app.json"))
        for name in ConfigFuzzTests.seeds + ConfigFuzzTests.overlaySeeds {
            let seed = try ConfigFuzzTests.read(name)
            let isOverlay = name.hasPrefix("overlays/")
            let quotes = Self.stringRanges(seed)
            for range in quotes {
                for filler in ["k", "\\u0007"] {
                    await Task.yield()
                    var long = ""
                    while long.utf8.count < 3_000 { long += filler }
                    var bytes = seed
                    bytes.replaceSubrange(range, with: Array(long.utf8))
                    let original = String(decoding: seed[range], as: UTF8.self)
                    cases += 1
                    let file = "Configs/" + name
                    do {
                        if isOverlay {
                            _ = try ConfigLoader.load(
                                data: app,
                                file: "Configs/app.json",
                                overlays: [ConfigOverlay(file: file, data: Data(bytes))], registry: .demo,
                                pathRoots: ["data": "/app-data"])
                        } else {
                            _ = try ConfigLoader.load(
                                data: Data(bytes), file: file, registry: .demo, pathRoots: ["data": "/app-data"])
                        }
                    } catch {
                        for problem in FuzzChecks.problems(of: error, texts: [file: bytes]) {
                            let key = problem.prefix(40) + " ← \"\(original.prefix(40))\""
                            failures[String(key)] =
                                failures[String(key)] ?? "\(name) \"\(original.prefix(40))\": \(problem)"
                        }
                    }
                }
            }
        }
        for (_, example) in failures.sorted(by: { $0.key < $1.key }) { Issue.record("\(example)") }
        #expect(cases > 100)
    }

    /// The byte ranges between the quotes of each string of a JSON text (escapes skipped).
    static func stringRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            let start = index + 1
            index = start
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
            }
            ranges.append(start..<min(index, bytes.count))
            index += 1
        }
        return ranges
    }
}
