/// Hides secrets (options marked secret, session tokens), and every fragment of them, in any
/// text the runtime prints: error messages in traces, reports, errors and config errors.
///
/// A graph's secret options make its redactor (``ServiceGraph/redactor``); a container starts
/// from it and registers what providers find at run time (``ProviderContext/registerSecret(_:)``).
///
/// ## The rule
///
/// A secret is replaced by ``placeholder`` wherever it occurs, and so is each of its
/// **fragments**: every maximal run of letters, digits and `_`, and every `_`-separated part
/// of such a run, of at least ``minimumFragmentLength`` (4) characters (see
/// ``fragments(of:)``). Errors quote pieces of what they were given (SQLite says
/// `no such column: api_key_77` about a secret migration's SQL; a server may echo a token
/// without its `tok_` prefix), so hiding only the whole value is not enough:
///
/// ```swift
/// let redactor = Redactor(secrets: ["INSERT INTO audit SELECT api_key_77 FROM t"])
/// redactor.redact("no such column: api_key_77")   // "no such column: <redacted>"
/// ```
///
/// - Matching is exact on the text's UTF-8 bytes (case-sensitive, not Unicode-normalized),
///   also inside longer words; overlapping and adjacent matches become one placeholder.
/// - Pieces shorter than four characters (`t`, `sk`, `42`) are not hidden on their own: they
///   carry little of a secret and would blank out ordinary words. A whole secret is hidden
///   whatever its length; one that short made only of letters, digits and `_` (`ok`, `m`) is
///   hidden where it is a whole word, not inside longer ones (`ok` in `tokens`).
/// - A secret is also hidden as messages quote a value: with its control characters written as
///   `\u{…}` escapes, and cut after 64 characters (then `…`).
/// - Placeholders already in the text are left alone: redacting twice changes nothing.
/// - A fragment is hidden everywhere it occurs in redacted text, also where it is an
///   ordinary word: a secret SQL text hides `SELECT` in every error message. Over-hiding is
///   the price of never showing a piece of a secret.
/// - Only text that passes through the redactor is covered: the runtime redacts every error
///   message it stores or traces. Service names, entry-point ids and file names are never
///   secret.
///
/// ## Cost
///
/// The secrets and fragments are compiled into Aho–Corasick automata, in time linear in their
/// total length: those given at creation once, on the first ``redact(_:)``, and shared by every
/// redactor made from this one with ``init(combining:)`` (a graph's secrets are compiled once,
/// however many containers redact with them); those registered later (a token per generation)
/// into a small one of their own, rebuilt on the first ``redact(_:)`` after a registration. A
/// redaction then reads each byte of the text once per automaton, however many secrets there
/// are, and returns the text untouched (no copy) when nothing matches.
public final class Redactor: Sendable {
    /// What a secret is replaced with.
    public static let placeholder = "<redacted>"

    /// The shortest run of letters, digits and `_` of a secret that is hidden on its own.
    public static let minimumFragmentLength = 4

    /// Secrets given at creation and, once built, their automaton: never changed, so redactors
    /// made from each other share them and build each automaton once.
    private final class FixedSecrets: Sendable {
        let secrets: Set<String>
        private let built = Locked<Compiled?>(nil)

        init(_ secrets: Set<String>) { self.secrets = secrets }

        /// The compiled secrets, built on first use; `nil` when there is no secret.
        func matcher() -> Compiled? {
            guard !secrets.isEmpty else { return nil }
            if let cached = built.withLock({ $0 }) { return cached.isEmpty ? nil : cached }
            // Built outside the lock: other redactions keep going meanwhile (they build their own
            // copy at worst; the first one stored is kept).
            let compiled = Redactor.compile(secrets)
            let matcher = built.withLock { stored in
                if let stored { return stored }
                stored = compiled
                return compiled
            }
            return matcher.isEmpty ? nil : matcher
        }
    }

    /// The secrets registered after creation (few: a token per generation) and, once built,
    /// their automaton.
    private struct Registered {
        var secrets: Set<String> = []
        /// Bumped by every new secret, so an automaton built from an older set is not stored.
        var version = 0
        /// ``secrets`` compiled; `nil` until built, and again after a registration.
        var matcher: Compiled?
    }

    /// The secrets given at creation: this redactor's own, or those of the redactors it combines.
    private let fixed: [FixedSecrets]
    private let registered: Locked<Registered>

    /// Creates a redactor that knows `secrets`; empty strings are ignored.
    public init(secrets: some Sequence<String> = []) {
        fixed = [FixedSecrets(Set(secrets.filter { !$0.isEmpty }))]
        registered = Locked(Registered())
    }

    /// A redactor that knows every secret `redactors` know now, to which more can be registered
    /// without changing them: a container's redactor starts from its graph's
    /// (``ServiceGraph/redactor``) and registers the tokens its providers find.
    ///
    /// The automata of the secrets `redactors` were created with are shared, not built again;
    /// the secrets registered with them so far are copied. Registering with one of them later
    /// does not reach this one, nor the other way round.
    public init(combining redactors: [Redactor]) {
        var seen = Set<ObjectIdentifier>()
        fixed = redactors.flatMap(\.fixed).filter { seen.insert(ObjectIdentifier($0)).inserted }
        var copied = Registered()
        for redactor in redactors { copied.secrets.formUnion(redactor.registered.withLock { $0.secrets }) }
        registered = Locked(copied)
    }

    /// Adds a secret; empty strings are ignored.
    public func register(_ secret: String) {
        guard !secret.isEmpty, !fixed.contains(where: { $0.secrets.contains(secret) }) else { return }
        registered.withLock { state in
            guard state.secrets.insert(secret).inserted else { return }
            state.version += 1
            state.matcher = nil
        }
    }

    /// `text` with every known secret and every fragment of one replaced by ``placeholder``.
    public func redact(_ text: String) -> String {
        guard !text.isEmpty else { return text }
        var matchers = fixed.compactMap { $0.matcher() }
        if let registered = registeredMatcher() { matchers.append(registered) }
        guard !matchers.isEmpty else { return text }
        let shortWords = matchers.map(\.shortWords).filter { !$0.isEmpty }
        let wordRanges = shortWords.isEmpty ? [] : Self.wholeWords(in: text, among: shortWords)
        var contiguous = text
        let redacted: String? = contiguous.withUTF8 { bytes in
            var ranges = wordRanges
            for matcher in matchers where !matcher.automaton.isEmpty {
                ranges = Self.union(ranges, matcher.automaton.coveredRanges(in: bytes))
            }
            ranges = Self.outsidePlaceholders(ranges, in: bytes)
            guard !ranges.isEmpty else { return nil }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var copied = 0
            for range in ranges {
                result.append(contentsOf: bytes[copied..<range.lowerBound])
                result.append(contentsOf: Self.placeholder.utf8)
                copied = range.upperBound
            }
            result.append(contentsOf: bytes[copied...])
            return String(decoding: result, as: UTF8.self)
        }
        return redacted ?? text
    }

    /// The fragments of `secret` that are hidden on their own, in order: its maximal runs of
    /// letters, digits and `_`, and the `_`-separated parts of those runs, of at least
    /// ``minimumFragmentLength`` characters.
    ///
    /// `"CREATE TABLE t (api_key_77 TEXT)"` has the fragments `CREATE`, `TABLE`, `api_key_77`
    /// and `TEXT`; `"tok_9c1e77ab"` has `tok_9c1e77ab` and `9c1e77ab`.
    public static func fragments(of secret: String) -> [String] {
        var fragments: [String] = []
        func keep(_ run: Substring.UnicodeScalarView) {
            guard run.count >= minimumFragmentLength else { return }
            fragments.append(String(run))
            guard run.contains("_") else { return }
            for part in run.split(separator: "_") where part.count >= minimumFragmentLength {
                fragments.append(String(part))
            }
        }
        let scalars = Substring(secret).unicodeScalars
        var start = scalars.startIndex
        for index in scalars.indices where !isWordScalar(scalars[index]) {
            keep(scalars[start..<index])
            start = scalars.index(after: index)
        }
        keep(scalars[start...])
        return fragments
    }

    /// Letters, digits and `_`: what identifiers, words, numbers and tokens are made of.
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar == "_"
    }

    /// The registered secrets compiled, built if missing or stale; `nil` when there is none.
    private func registeredMatcher() -> Compiled? {
        let (cached, secrets, version) = registered.withLock { state in
            (state.matcher, state.matcher == nil ? state.secrets : [], state.version)
        }
        if let cached { return cached.isEmpty ? nil : cached }
        guard !secrets.isEmpty else { return nil }
        // Built outside the lock: other redactions keep going meanwhile (they build their own
        // copy at worst; only one built from the newest set is kept).
        let matcher = Self.compile(secrets)
        registered.withLock { state in
            if state.version == version { state.matcher = matcher }
        }
        return matcher.isEmpty ? nil : matcher
    }

    /// Secrets compiled: an automaton of what is hidden wherever it occurs (the secrets, as
    /// messages quote them too, and their fragments), and the short secrets hidden as whole words.
    struct Compiled: Sendable {
        let automaton: SecretMatcher
        /// Secrets shorter than ``minimumFragmentLength`` made of word characters only.
        let shortWords: Set<String>

        var isEmpty: Bool { automaton.isEmpty && shortWords.isEmpty }
    }

    /// `secrets` and every fragment of them, compiled.
    private static func compile(_ secrets: Set<String>) -> Compiled {
        var patterns = Set<String>()
        var shortWords = Set<String>()
        for secret in secrets {
            let length = secret.unicodeScalars.count
            if length < minimumFragmentLength && secret.unicodeScalars.allSatisfy(isWordScalar) {
                shortWords.insert(secret)
                continue
            }
            patterns.insert(secret)
            // As a message quotes a value (`NameRules.visible`): escaped, and cut.
            let escaped = NameRules.escapingControlCharacters(secret)
            if escaped != secret { patterns.insert(escaped) }
            if length > NameRules.visibleLength { patterns.insert(String(NameRules.visible(secret).dropLast())) }
            patterns.formUnion(fragments(of: secret))
        }
        return Compiled(automaton: SecretMatcher(patterns: patterns.map { Array($0.utf8) }), shortWords: shortWords)
    }

    /// The UTF-8 ranges of the maximal runs of word characters in `text` that are one of `words`.
    private static func wholeWords(in text: String, among words: [Set<String>]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var offset = 0
        var runStart = 0
        var run = String.UnicodeScalarView()
        func endRun() {
            if !run.isEmpty && run.count < minimumFragmentLength {
                let word = String(run)
                if words.contains(where: { $0.contains(word) }) { ranges.append(runStart..<offset) }
            }
            run = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            if isWordScalar(scalar) {
                if run.isEmpty { runStart = offset }
                run.append(scalar)
            } else {
                endRun()
            }
            offset += scalar.utf8.count
        }
        endRun()
        return ranges
    }

    /// `ranges` without those that lie inside a placeholder the text holds already.
    private static func outsidePlaceholders(_ ranges: [Range<Int>], in bytes: UnsafeBufferPointer<UInt8>) -> [Range<
        Int
    >] {
        guard !ranges.isEmpty else { return ranges }
        let placeholder = Array(placeholder.utf8)
        var held: [Range<Int>] = []
        var index = 0
        while index + placeholder.count <= bytes.count {
            if bytes[index] == placeholder[0]
                && placeholder.indices.allSatisfy({ bytes[index + $0] == placeholder[$0] })
            {
                held.append(index..<index + placeholder.count)
                index += placeholder.count
            } else {
                index += 1
            }
        }
        guard !held.isEmpty else { return ranges }
        // Both lists are in order: one walk.
        var next = 0
        return ranges.filter { range in
            while next < held.count && held[next].upperBound <= range.lowerBound { next += 1 }
            return
                !(next < held.count && held[next].lowerBound <= range.lowerBound
                && range.upperBound <= held[next].upperBound)
        }
    }

    /// The union of two ordered lists of disjoint ranges, overlapping and adjacent ones merged.
    private static func union(_ first: [Range<Int>], _ second: [Range<Int>]) -> [Range<Int>] {
        guard !first.isEmpty else { return second }
        guard !second.isEmpty else { return first }
        var merged: [Range<Int>] = []
        var (left, right) = (0, 0)
        while left < first.count || right < second.count {
            let next: Range<Int>
            if right == second.count || (left < first.count && first[left].lowerBound <= second[right].lowerBound) {
                next = first[left]
                left += 1
            } else {
                next = second[right]
                right += 1
            }
            if let last = merged.last, last.upperBound >= next.lowerBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, next.upperBound)
            } else {
                merged.append(next)
            }
        }
        return merged
    }
}
