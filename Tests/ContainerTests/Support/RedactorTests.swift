import ContainerTesting
import Testing

@testable import Container

/// The redaction rule (`Redactor`): whole secrets and their fragments of four or more letters,
/// digits or underscores are hidden everywhere, in one pass over the text.
@Suite("Redactor")
struct RedactorTests {
    @Test("a fragment of secret SQL quoted by an error is hidden")
    func fragmentsOfSecretSQL() {
        let redactor = Redactor(secrets: ["INSERT INTO audit SELECT MIGSECRET_col, 'zq horse' FROM t;"])
        #expect(redactor.redact("no such column: MIGSECRET_col") == "no such column: <redacted>")
        #expect(redactor.redact("near \"horse\": syntax error") == "near \"<redacted>\": syntax error")
        #expect(redactor.redact("no such table: t") == "no such table: t", "runs under four characters stay")
        #expect(
            Redactor.fragments(of: "INSERT INTO audit SELECT MIGSECRET_col, 'zq horse' FROM t;")
                == ["INSERT", "INTO", "audit", "SELECT", "MIGSECRET_col", "MIGSECRET", "horse", "FROM"])
        #expect(Redactor.fragments(of: "tok_9c1e77ab") == ["tok_9c1e77ab", "9c1e77ab"])
    }

    @Test("whole secrets of any length, inside longer words too; overlapping and adjacent hits become one placeholder")
    func wholeSecretsAndMerging() {
        let redactor = Redactor(secrets: ["k-1", "abc-defg", "defg-hij"])
        #expect(redactor.redact("key k-1 and xk-12") == "key <redacted> and x<redacted>2")
        #expect(redactor.redact("abc-defg-hij!") == "<redacted>!")
        #expect(redactor.redact("[defgdefg]") == "[<redacted>]")
        #expect(redactor.redact("nothing here") == "nothing here")
        #expect(redactor.redact("") == "")
    }

    @Test("a short secret of word characters is hidden as a whole word, not inside longer words")
    func shortSecrets() {
        let redactor = Redactor(secrets: ["m", "ok", "e1"])
        #expect(redactor.redact("migration m failed: ok") == "migration <redacted> failed: <redacted>")
        #expect(redactor.redact("tokens, name, e10, (e1)") == "tokens, name, e10, (<redacted>)")
        #expect(redactor.redact("k-1 m_2") == "k-1 m_2", "'m_2' is one word")
    }

    @Test("a secret as messages quote it: control characters escaped, cut after 64 characters")
    func quotedForms() {
        let long = "cmpl" + String(repeating: "QZXWVUTSRQPONMLK", count: 10)
        let redactor = Redactor(secrets: ["tok-9f3-a1c\n", long])
        #expect(redactor.redact("unknown type 'tok-9f3-a1c\\u{A}'") == "unknown type '<redacted>'")
        #expect(redactor.redact("unknown '\(NameRules.visible(long))'") == "unknown '<redacted>…'")
    }

    @Test("placeholders in the text are left alone: redacting twice changes nothing")
    func idempotent() {
        let redactor = Redactor(secrets: ["e", "red", "acted>", "hunter22"])
        let once = redactor.redact("the key hunter22 was e")
        #expect(once == "the key <redacted> was <redacted>")
        #expect(redactor.redact(once) == once)
    }

    @Test("numbers, non-ASCII secrets and a secret registered after the first redaction")
    func registrationAndUnicode() {
        let redactor = Redactor()
        #expect(redactor.redact("token tok-9f3a2b") == "token tok-9f3a2b")
        redactor.register("tok-9f3a2b")
        redactor.register("")
        #expect(redactor.redact("token tok-9f3a2b, again 9f3a2b") == "token <redacted>, again <redacted>")
        redactor.register("pässwört-Ωmega")
        #expect(redactor.redact("bad pässwört, Ωmega!") == "bad <redacted>, <redacted>!")
        #expect(Redactor.fragments(of: "1234567.7654321") == ["1234567", "7654321"])
    }

    @Test("agrees with a naive search on random secrets and texts", arguments: [1, 2, 3, 4] as [UInt64])
    func agreesWithNaiveSearch(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("abcAB_-1é ")
        func word(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        for _ in 0..<200 {
            let secrets = (0..<Int(random.next() % 6)).map { _ in word(1 + Int(random.next() % 9)) }
            let text = word(Int(random.next() % 60))
            let expected = Self.naiveRedaction(of: text, secrets: secrets)
            // Some secrets given at creation, the others registered later: two automata.
            let split = Int(random.next() % UInt64(secrets.count + 1))
            let redactor = Redactor(secrets: secrets[..<split])
            _ = redactor.redact(text)
            for secret in secrets[split...] { redactor.register(secret) }
            #expect(redactor.redact(text) == expected, "seed \(seed): secrets \(secrets), text '\(text)'")
        }
    }

    @Test("combining: every secret of each redactor, registrations copied once and kept apart after")
    func combining() {
        let first = Redactor(secrets: ["alpha_1111"])
        let second = Redactor(secrets: ["beta-2222"])
        second.register("tok_early99")
        let combined = Redactor(combining: [first, second, first])
        #expect(combined.redact("alpha_1111 beta-2222 tok_early99") == "<redacted> <redacted> <redacted>")
        #expect(combined.redact("1111 and 2222") == "<redacted> and <redacted>", "fragments too")
        combined.register("tok_late777")
        second.register("tok_after88")
        #expect(combined.redact("tok_late777 tok_after88") == "<redacted> tok_after88")
        #expect(second.redact("tok_late777 tok_after88") == "tok_late777 <redacted>")
        #expect(first.redact("beta-2222") == "beta-2222")
    }

    @Test("combined redactors agree with a naive search", arguments: [5, 6, 7] as [UInt64])
    func combinedAgreesWithNaiveSearch(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("abcAB_-1é ")
        func word(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
        }
        for _ in 0..<200 {
            let groups = (0..<3).map { _ in (0..<Int(random.next() % 3)).map { _ in word(1 + Int(random.next() % 9)) } }
            let registered = (0..<Int(random.next() % 3)).map { _ in word(1 + Int(random.next() % 9)) }
            let text = word(Int(random.next() % 60))
            let combined = Redactor(combining: groups.map { Redactor(secrets: $0) })
            for secret in registered { combined.register(secret) }
            let expected = Self.naiveRedaction(of: text, secrets: groups.flatMap { $0 } + registered)
            #expect(combined.redact(text) == expected, "seed \(seed): secrets \(groups) + \(registered), '\(text)'")
        }
    }

    @Test("many secrets: one pass over each text, not one per secret")
    func manySecretsStayCheap() async throws {
        var random = SplitMix64(seed: 42)
        let secrets = (0..<10_000).map { index in "svc-\(index)-" + String(random.next(), radix: 36) }
        let redactor = Redactor(secrets: secrets)
        let message = String(repeating: "node failed: connection refused by upstream host; ", count: 8)
        let leaking = message + secrets[7_777] + " " + String(secrets[1_234].split(separator: "-").last ?? "")
        _ = redactor.redact(message)  // builds the automaton
        let clock = ContinuousClock()
        let started = clock.now
        for _ in 0..<2_000 { #expect(redactor.redact(message) == message) }
        let elapsed = clock.now - started
        #expect(redactor.redact(leaking) == message + "<redacted> <redacted>")
        // Scanning 2,000 messages of 400 bytes is about a millisecond of work per hundred
        // messages; a scan per secret (10,000 per message) would take minutes. Generous bound.
        #expect(elapsed < .seconds(5), "2,000 redactions against 10,000 secrets took \(elapsed)")
    }

    @Test("node failures, teardown errors and the reset report hide fragments of secrets and of registered tokens")
    func callSitesHideFragments() async throws {
        let options = ServiceOptions(
            ["dsn": .string("host=db.zq.internal user=zq_owner password=ZqPass_4411")], secretKeys: ["dsn"])
        let recorder = TraceRecorder()
        let container = try ServiceContainer(
            [
                ServiceSpec(
                    ServiceKey<String>("store"), options: options,
                    tearDown: { _ in throw TestError("close: authentication failed for zq_owner") }
                ) { context in
                    context.registerSecret("tok_9c1e77ab")
                    return "store"
                },
                ServiceSpec(ServiceKey<Int>("feed"), dependsOn: ["store"], defaultFailure: .transient) { _ in
                    throw TestError("login refused: ZqPass_4411 rejected, token 9c1e77ab expired")
                },
            ], trace: [recorder])
        let error = await #expect(throws: ContainerError.self) { try await container.start() }
        let report = try await container.reset()
        let texts =
            [error?.message ?? "", "\(error?.report?.nodes.map(\.outcome) ?? [])"]
            + report.failures.compactMap(\.error) + recorder.events.map { "\($0.kind)" }
        let everything = texts.joined(separator: "\n")
        #expect(everything.contains("login refused: <redacted> rejected, token <redacted> expired"))
        #expect(report.failures.first?.error == "close: authentication failed for <redacted>")
        for piece in ["ZqPass_4411", "ZqPass", "4411", "zq_owner", "owner", "9c1e77ab", "internal", "password"] {
            #expect(!everything.contains(piece), "'\(piece)' leaked")
        }
    }

    /// Marks every byte covered by an occurrence of a secret or a fragment, then replaces each
    /// run of marked bytes with the placeholder: the rule, written the slow and obvious way.
    static func naiveRedaction(of text: String, secrets: [String]) -> String {
        let bytes = Array(text.utf8)
        var patterns = Set<[UInt8]>()
        var shortWords = Set<String>()
        for secret in secrets where !secret.isEmpty {
            if secret.unicodeScalars.count < 4 && secret.unicodeScalars.allSatisfy(isWord) {
                shortWords.insert(secret)
                continue
            }
            patterns.insert(Array(secret.utf8))
            for fragment in Redactor.fragments(of: secret) { patterns.insert(Array(fragment.utf8)) }
        }
        var marked = [Bool](repeating: false, count: bytes.count)
        // A short secret of word characters: only where a whole run of them is that secret.
        var offset = 0
        var run = ""
        var runStart = 0
        for scalar in text.unicodeScalars + [" "] {
            if isWord(scalar) {
                if run.isEmpty { runStart = offset }
                run.unicodeScalars.append(scalar)
            } else {
                if shortWords.contains(run) { for index in runStart..<offset { marked[index] = true } }
                run = ""
            }
            offset += scalar.utf8.count
        }
        for pattern in patterns where pattern.count <= bytes.count {
            for start in 0...(bytes.count - pattern.count) where Array(bytes[start..<start + pattern.count]) == pattern
            {
                for index in start..<start + pattern.count { marked[index] = true }
            }
        }
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if marked[index] {
                result += Array(Redactor.placeholder.utf8)
                while index < bytes.count && marked[index] { index += 1 }
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Letters, digits and `_`.
    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
    }
}
