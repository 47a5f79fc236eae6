// The availability audit behind scripts/audit-availability.sh; its header and docs/availability.md
// say what is reported, the heuristics, and what the audit cannot see.
//
//   audit [--names] <package-root> <module.swiftinterface>...
//
// Prints one line per use under <package-root>/Sources of an API or a syntax newer than the package
// declares and exits 1 when there is one; exits 0 with a summary when there is none, 2 when it
// cannot run. `--names` lists the names newer than the minimums instead. A hand-written lexer, not
// SwiftSyntax: the audit must need nothing beyond the toolchain.
import Foundation

// MARK: - Versions and platforms

/// A version of up to three components (`26.0`, `10.15.4`); missing ones count as 0, so `15` equals
/// `15.0`. Plain integers rather than an array: the audit compares versions at almost every token.
struct Version: Comparable, CustomStringConvertible {
    /// No requirement.
    static let zero = Version(0, 0, 0)
    /// What `unavailable` raises a scope to: nothing is reported there.
    static let never = Version(Int.max, 0, 0)

    let major: Int
    let minor: Int
    let patch: Int

    init(_ major: Int, _ minor: Int, _ patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Parses `26.0`, `26`, or SwiftPM's `10_15` (`.v10_15` without its `v`).
    init?(_ text: some StringProtocol) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).flatMap { $0.split(separator: "_") }
        let numbers = parts.compactMap { Int($0) }
        guard !numbers.isEmpty, numbers.count == parts.count, numbers.count <= 3 else { return nil }
        self.init(numbers[0], numbers.count > 1 ? numbers[1] : 0, numbers.count > 2 ? numbers[2] : 0)
    }

    static func < (lhs: Version, rhs: Version) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        return lhs.patch < rhs.patch
    }

    var description: String { patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)" }
}

/// The Apple platforms audited, in report order. Linux, Windows and Android have no availability.
let platformNames = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]

/// The index of an audited platform as `@available` or Package.swift spells it (`OSX` and `xrOS` are
/// older spellings); nil for the others (`macCatalyst` follows iOS, `*ApplicationExtension` its platform).
func platformIndex(_ name: String) -> Int? {
    switch name {
    case "OSX": return 0
    case "xrOS": return 4
    default: return platformNames.firstIndex(of: name)
    }
}

/// Per audited platform: the first version a declaration exists in, or the floor a scope guarantees
/// (the deployment minimum, raised by the `#available` and `@available` around the scope).
struct Availability {
    var versions = Array(repeating: Version.zero, count: platformNames.count)

    /// Both hold: the later version on each platform.
    func raised(to other: Availability) -> Availability {
        var result = self
        for k in versions.indices where other.versions[k] > versions[k] { result.versions[k] = other.versions[k] }
        return result
    }

    /// Either suffices: the earlier version on each platform (overloads, see `Index`).
    func lowered(to other: Availability) -> Availability {
        var result = self
        for k in versions.indices where other.versions[k] < versions[k] { result.versions[k] = other.versions[k] }
        return result
    }

    /// The platforms where this is later than `floor`.
    func platforms(laterThan floor: Availability) -> [Int] {
        versions.indices.filter { versions[$0] > floor.versions[$0] }
    }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Lexer

/// What the lexer tells apart; `pound` and `attribute` keep their sigil (`#if`, `@available`).
enum Kind { case identifier, number, string, punctuation, op, pound, attribute }

struct Token {
    let kind: Kind
    /// The spelling: an identifier without backticks; a string literal's contents after a `"`, so that
    /// no literal (`"{"`) reads as the token it spells.
    let text: String
    let line: Int
    let column: Int

    func isPunctuation(_ spelling: String) -> Bool { kind == .punctuation && text == spelling }
}

/// Splits Swift source into tokens and drops comments and whitespace. A string literal becomes one
/// token, and its interpolations, which are code, are lexed as code after it; so does a regex
/// literal (`#/.../#`, or a bare `/.../` where an expression starts and it closes on its line).
struct Lexer {
    private let bytes: [UInt8]
    private var i = 0
    private var line = 1
    private var lineStart = 0
    private var tokens: [Token] = []

    static func tokens(of text: [UInt8]) -> [Token] {
        var lexer = Lexer(bytes: text)
        lexer.code(inInterpolation: false)
        return lexer.tokens
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func byte(_ offset: Int) -> UInt8 { i + offset < bytes.count ? bytes[i + offset] : 0 }

    private func hashes(_ count: Int, at offset: Int) -> Bool {
        (0..<count).allSatisfy { byte(offset + $0) == UInt8(ascii: "#") }
    }

    private static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c == 0x5F || c == 0x24 || c >= 0x80
    }

    private static func isIdentifierBody(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private static func isOperator(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "!"),
            UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"),
            UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "~"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    private mutating func emit(_ kind: Kind, from start: Int, column: Int) {
        emit(kind, String(decoding: bytes[start..<i], as: UTF8.self), line: line, column: column)
    }

    private mutating func emit(_ kind: Kind, _ text: String, line tokenLine: Int, column: Int) {
        tokens.append(Token(kind: kind, text: text, line: tokenLine, column: column))
    }

    private mutating func newline() {
        line += 1
        i += 1
        lineStart = i
    }

    private mutating func skip(while condition: (UInt8) -> Bool) {
        while i < bytes.count, condition(bytes[i]) { i += 1 }
    }

    /// Lexes code to the end, or in an interpolation to the `)` that closes it.
    private mutating func code(inInterpolation: Bool) {
        var parens = 0
        while i < bytes.count {
            let c = bytes[i]
            let column = i - lineStart + 1
            let start = i
            switch c {
            case 0x0A:
                newline()
            case 0x20, 0x09, 0x0D, 0x0C:
                i += 1
            case UInt8(ascii: "/") where byte(1) == UInt8(ascii: "/"):
                skip { $0 != 0x0A }
            case UInt8(ascii: "/") where byte(1) == UInt8(ascii: "*"):
                blockComment()
            case UInt8(ascii: "/") where regexMayStart() && bareRegex():
                emit(.string, "\"" + String(decoding: bytes[start..<i], as: UTF8.self), line: line, column: column)
            case UInt8(ascii: "\""):
                string(hashes: 0, column: column)
            case UInt8(ascii: "#"):
                var count = 0
                while byte(count) == UInt8(ascii: "#") { count += 1 }
                if byte(count) == UInt8(ascii: "\"") {
                    i += count
                    string(hashes: count, column: column)
                } else if byte(count) == UInt8(ascii: "/") {
                    extendedRegex(hashes: count)
                } else if Lexer.isIdentifierStart(byte(1)) {
                    i += 1
                    skip(while: Lexer.isIdentifierBody)
                    emit(.pound, from: start, column: column)
                } else {
                    i += 1
                    emit(.punctuation, from: start, column: column)
                }
            case UInt8(ascii: "@") where Lexer.isIdentifierStart(byte(1)):
                i += 1
                skip(while: Lexer.isIdentifierBody)
                emit(.attribute, from: start, column: column)
            case UInt8(ascii: "`"):
                i += 1
                skip { $0 != UInt8(ascii: "`") && $0 != 0x0A }
                emit(.identifier, String(decoding: bytes[(start + 1)..<i], as: UTF8.self), line: line, column: column)
                if byte(0) == UInt8(ascii: "`") { i += 1 }
            case _ where Lexer.isIdentifierStart(c):
                skip(while: Lexer.isIdentifierBody)
                emit(.identifier, from: start, column: column)
            case _ where Lexer.isDigit(c):
                // `1_000`, `0x1F`, `26.0`, `10.15.4`; a `.` not followed by a digit ends it (`0..<n`).
                while i < bytes.count,
                    Lexer.isIdentifierBody(bytes[i]) || (bytes[i] == UInt8(ascii: ".") && Lexer.isDigit(byte(1)))
                {
                    i += 1
                }
                emit(.number, from: start, column: column)
            case UInt8(ascii: ".") where byte(1) == UInt8(ascii: "."):
                // A range operator (`...`, `..<`): what follows it is no member.
                skip { $0 == UInt8(ascii: ".") || Lexer.isOperator($0) }
                emit(.op, from: start, column: column)
            case _ where Lexer.isOperator(c):
                // A comment ends an operator: `a+/* c */b`.
                while i < bytes.count, Lexer.isOperator(bytes[i]),
                    !(bytes[i] == UInt8(ascii: "/") && (byte(1) == UInt8(ascii: "/") || byte(1) == UInt8(ascii: "*")))
                {
                    i += 1
                }
                emit(.op, from: start, column: column)
            default:
                i += 1
                if inInterpolation, c == UInt8(ascii: "(") { parens += 1 }
                if inInterpolation, c == UInt8(ascii: ")") {
                    if parens == 0 { return }
                    parens -= 1
                }
                emit(.punctuation, from: start, column: column)
            }
        }
    }

    /// Skips `/* ... */`, which nests in Swift.
    private mutating func blockComment() {
        var depth = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/"), byte(1) == UInt8(ascii: "*") {
                depth += 1
                i += 2
            } else if bytes[i] == UInt8(ascii: "*"), byte(1) == UInt8(ascii: "/") {
                depth -= 1
                i += 2
                if depth == 0 { return }
            } else if bytes[i] == 0x0A {
                newline()
            } else {
                i += 1
            }
        }
    }

    /// Where a bare `/.../` regex literal may start: where an expression does, not after an operand
    /// (`a/b` and `f() / 2` divide), and not before a space.
    private func regexMayStart() -> Bool {
        if [0x20, 0x09, 0x0A, 0x0D].contains(byte(1)) { return false }
        guard let last = tokens.last else { return true }
        switch last.kind {
        case .op: return true
        case .punctuation: return ["(", "[", "{", ",", ":", ";"].contains(last.text)
        case .identifier: return ["return", "case", "in", "try", "await", "where", "throw", "if"].contains(last.text)
        default: return false
        }
    }

    /// Skips a bare `/.../` regex literal when it closes on its line (escapes and `[...]` classes
    /// respected); false, having moved nothing, when it does not: then the `/` is an operator.
    private mutating func bareRegex() -> Bool {
        var k = 1
        var inClass = false
        while byte(k) != 0x0A, i + k < bytes.count {
            switch byte(k) {
            case UInt8(ascii: "\\"): k += 1
            case UInt8(ascii: "["): inClass = true
            case UInt8(ascii: "]"): inClass = false
            case UInt8(ascii: "/") where !inClass:
                i += k + 1
                return true
            default: break
            }
            k += 1
        }
        return false
    }

    /// Skips `#/ ... /#` (as many `#` on both sides).
    private mutating func extendedRegex(hashes count: Int) {
        i += count + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/"), hashes(count, at: 1) {
                i += 1 + count
                return
            }
            if bytes[i] == 0x0A { newline() } else { i += 1 }
        }
    }

    /// Lexes a string literal from its first `"` (after the `#` of a raw string) into one token; each
    /// `\(...)` in it (`\#(...)` in a raw string) is lexed as code, after the literal's token.
    private mutating func string(hashes count: Int, column: Int) {
        let startLine = line
        // `"""` opens a multi-line literal only when the line ends there: `#""""#` is the string `""`.
        var rest = 3
        while byte(rest) == 0x20 || byte(rest) == 0x09 || byte(rest) == 0x0D { rest += 1 }
        let multiline =
            byte(1) == UInt8(ascii: "\"") && byte(2) == UInt8(ascii: "\"")
            && (byte(rest) == 0x0A || i + rest >= bytes.count)
        let quotes = multiline ? 3 : 1
        i += quotes
        let index = tokens.count
        var contents: [UInt8] = [UInt8(ascii: "\"")]
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x0A {
                if !multiline { break }  // unterminated: the next line lexes as code again
                contents.append(c)
                newline()
            } else if c == UInt8(ascii: "\\"), hashes(count, at: 1) {
                if byte(1 + count) == UInt8(ascii: "(") {
                    i += 2 + count
                    code(inInterpolation: true)
                } else {
                    i += 1 + count
                    if byte(0) != 0x0A { i += 1 }  // the escaped character; an escaped newline is a newline
                }
            } else if c == UInt8(ascii: "\""), !multiline || (byte(1) == c && byte(2) == c), hashes(count, at: quotes) {
                i += quotes + count
                break
            } else {
                contents.append(c)
                i += 1
            }
        }
        let literal = Token(
            kind: .string, text: String(decoding: contents, as: UTF8.self), line: startLine, column: column)
        tokens.insert(literal, at: index)
    }
}

// MARK: - Shared token helpers

/// The index of the token that closes the group opened at `start` (`(` or `[`), or the last index.
func closing(_ tokens: [Token], from start: Int) -> Int {
    var depth = 0
    for k in start..<tokens.count where tokens[k].kind == .punctuation {
        switch tokens[k].text {
        case "(", "[": depth += 1
        case ")", "]":
            depth -= 1
            if depth == 0 { return k }
        default: break
        }
    }
    return tokens.count - 1
}

/// What one `@available(...)` or `#available(...)` argument list says about the audited platforms.
struct AvailabilityArguments {
    /// The introduced versions; `Version.never` where it says `unavailable`.
    var introduced = Availability()
    /// Some audited platform (or `*`) is `unavailable`.
    var unavailable = false
    /// Some audited platform has an introduced version.
    var restricts = false
    /// The index of the closing `)`.
    var end: Int
}

/// Reads the list opened at `tokens[start]` (a `(`): the short form `macOS 26.0, iOS 26.0, *`, or the
/// long form `macOS, introduced: 26.0` and `*, unavailable`. `swift 5`, `deprecated:` and platforms
/// that are not audited say nothing here.
func readAvailability(_ tokens: [Token], from start: Int) -> AvailabilityArguments {
    let end = closing(tokens, from: start)
    var result = AvailabilityArguments(end: end)
    var pieces: [[Token]] = [[]]
    for token in tokens[(start + 1)..<max(start + 1, end)] {
        if token.isPunctuation(",") { pieces.append([]) } else { pieces[pieces.count - 1].append(token) }
    }
    // The long form names one platform (or `*`) first, then labeled arguments about it.
    let longForm = pieces.count > 1 && pieces[0].count == 1
    var longPlatforms: [Int] = []
    if longForm, pieces[0][0].text == "*" {
        longPlatforms = Array(platformNames.indices)
    } else if longForm, let k = platformIndex(pieces[0][0].text) {
        longPlatforms = [k]
    }
    for piece in pieces {
        let words = piece.map(\.text)
        if words.count == 2, let k = platformIndex(words[0]), let version = Version(words[1]) {
            result.introduced.versions[k] = version
            result.restricts = true
        } else if longForm, words.count == 3, words[0] == "introduced", let version = Version(words[2]) {
            for k in longPlatforms { result.introduced.versions[k] = version }
            result.restricts = result.restricts || !longPlatforms.isEmpty
        } else if longForm, words == ["unavailable"], !longPlatforms.isEmpty {
            for k in longPlatforms { result.introduced.versions[k] = .never }
            result.unavailable = true
        }
    }
    return result
}

/// Declaration keywords: an identifier after one is a name being declared, not a use.
let declarationKeywords: Set<String> = [
    "func", "init", "deinit", "subscript", "var", "let", "case", "struct", "class", "enum", "protocol", "actor",
    "extension", "typealias", "associatedtype", "macro", "operator", "precedencegroup",
]

/// Words that are keywords where a use would stand (`func f() async`), though the interfaces declare
/// some as names too (the deprecated `async(priority:operation:)`).
let keywords: Set<String> = [
    "async", "await", "throws", "rethrows", "throw", "try", "some", "any", "in", "inout", "is", "as", "self", "Self",
    "super", "where", "get", "set", "each", "repeat", "consume", "copy", "borrowing", "consuming", "sending",
    "isolated", "unsafe", "return",
]

/// `class func`, `class var`: `class` as a modifier, not a declaration.
func isClassModifier(_ tokens: [Token], _ k: Int) -> Bool {
    tokens[k].text == "class" && k + 1 < tokens.count && tokens[k + 1].kind == .identifier
        && ["func", "var", "let", "subscript", "init", "typealias"].contains(tokens[k + 1].text)
}

/// The end of a `#if` or `#elseif` condition: the rest of its line.
func conditionEnd(_ tokens: [Token], after k: Int) -> Int {
    var end = k + 1
    while end < tokens.count, tokens[end].line == tokens[k].line { end += 1 }
    return end
}

/// The braces (and parens) open around the walk, across `#if` blocks: each branch starts with what
/// was open at its `#if`, and after `#endif` the walk goes on with what the first branch left open.
/// So a `#if` around two signatures of one body (each ending in `{`) keeps the walk balanced.
struct Branches<Level> {
    private var stack: [(start: [Level], afterFirst: [Level]?)] = []

    var depth: Int { stack.count }

    mutating func enter(_ levels: [Level]) { stack.append((levels, nil)) }

    /// At `#elseif` or `#else`.
    mutating func next(_ levels: inout [Level]) {
        guard let top = stack.last else { return }
        if top.afterFirst == nil { stack[stack.count - 1].afterFirst = levels }
        levels = top.start
    }

    /// At `#endif`.
    mutating func exit(_ levels: inout [Level]) {
        guard let top = stack.popLast() else { return }
        if let after = top.afterFirst { levels = after }
    }
}

// MARK: - The interfaces

/// Every public declaration of the interfaces, by name: per audited platform, the earliest version
/// in which *some* declaration of the name exists. That is the overload heuristic: a name is newer
/// than the minimums only where all its declarations are, so `init` or `withValue` never are. Members
/// (in a type, extension or protocol) and free declarations (top-level functions, variables, types,
/// macros) are kept apart, since a use tells them apart by a leading `.`.
struct Index {
    var free: [String: Availability] = [:]
    var member: [String: Availability] = [:]
    var declarations = 0

    mutating func add(_ name: String, member isMember: Bool, _ availability: Availability) {
        declarations += 1
        if isMember {
            member[name] = member[name].map { $0.lowered(to: availability) } ?? availability
        } else {
            free[name] = free[name].map { $0.lowered(to: availability) } ?? availability
        }
    }
}

/// Adds the public declarations of one `.swiftinterface` to `index`; false when its braces do not
/// balance (then the file is no interface the audit can read). The compiler prints an interface as
/// one declaration per line after its attributes; an `@available` on an extension or type applies to
/// its members; `#if compiler(>=5.3) && $Feature` branches declare the same names, so all are read.
func collect(interface tokens: [Token], into index: inout Index) -> Bool {
    struct Level {
        var brace: Bool
        /// A type, extension or protocol body, or the file: its direct children are declarations.
        var declarations: Bool
        var member: Bool
        var availability = Availability()
        var unavailable = false
    }
    var levels = [Level(brace: true, declarations: true, member: false)]
    var branches = Branches<Level>()

    // What the attributes and modifiers read so far say about the next declaration.
    var own = Availability()
    var unavailable = false
    var hidden = false  // internal, private, fileprivate, package, @_spi: no client can use it
    var typeBody: Level?  // after `struct`, `extension`...: the next `{` holds members
    func reset() {
        own = Availability()
        unavailable = false
        hidden = false
        typeBody = nil
    }

    var k = 0
    while k < tokens.count {
        let token = tokens[k]
        let level = levels[levels.count - 1]
        let next = k + 1 < tokens.count ? tokens[k + 1] : nil
        switch (token.kind, token.text) {
        case (.pound, "#if"), (.pound, "#elseif"), (.pound, "#else"), (.pound, "#endif"):
            if token.text == "#if" { branches.enter(levels) }
            if token.text == "#elseif" || token.text == "#else" { branches.next(&levels) }
            if token.text == "#endif" { branches.exit(&levels) }
            reset()
            if token.text == "#if" || token.text == "#elseif" {
                k = conditionEnd(tokens, after: k)
                continue
            }
        case (.punctuation, "{"):
            levels.append(
                level.declarations
                    ? typeBody ?? Level(brace: true, declarations: false, member: true)
                    : Level(brace: true, declarations: false, member: true))
            reset()
        case (.punctuation, "}"):
            if levels.count > 1 { levels.removeLast() }
            reset()
        case (.punctuation, "("), (.punctuation, "["):
            levels.append(Level(brace: false, declarations: false, member: true))
        case (.punctuation, ")"), (.punctuation, "]"):
            if levels.count > 1, !level.brace { levels.removeLast() }
        case (.attribute, _) where level.declarations:
            let hasArguments = next?.isPunctuation("(") ?? false
            if token.text == "@available", hasArguments {
                let arguments = readAvailability(tokens, from: k + 1)
                own = own.raised(to: arguments.introduced)
                unavailable = unavailable || arguments.unavailable
                k = arguments.end
            } else {
                hidden = hidden || token.text == "@_spi"
                if hasArguments { k = closing(tokens, from: k + 1) }
            }
        case (.identifier, let word) where level.declarations:
            let availability = level.availability.raised(to: own)
            let usable = !hidden && !unavailable && !level.unavailable
            func add(_ name: String) { if usable { index.add(name, member: level.member, availability) } }
            switch word {
            case "internal", "private", "fileprivate", "package":
                // `public private(set) var`: the getter is still public.
                if next?.isPunctuation("(") ?? false { k = closing(tokens, from: k + 1) } else { hidden = true }
            case "class" where isClassModifier(tokens, k):
                break
            case "struct", "class", "enum", "protocol", "actor", "extension":
                if word != "extension", let next, next.kind == .identifier { add(next.text) }
                let body = Level(
                    brace: true, declarations: true, member: true, availability: availability,
                    unavailable: unavailable || level.unavailable)
                reset()
                typeBody = body
            case "func", "var", "let", "typealias", "associatedtype":
                if let next, next.kind == .identifier { add(next.text) }  // not an operator's `func ==`
                reset()
            case "init":
                add("init")
                reset()
            case "macro":
                // A use spells it with its sigil: `#isolation`, `@TaskLocal`.
                if let next, next.kind == .identifier {
                    add("#" + next.text)
                    add("@" + next.text)
                }
                reset()
            case "case":
                // `case a, b(Int), c = 1`, on one line.
                var j = k + 1
                while j < tokens.count, tokens[j].line == token.line {
                    if tokens[j].kind == .identifier { add(tokens[j].text) }
                    j += 1
                    while j < tokens.count, tokens[j].line == token.line, !tokens[j].isPunctuation(",") {
                        if tokens[j].isPunctuation("(") { j = closing(tokens, from: j) }
                        j += 1
                    }
                    if j < tokens.count, tokens[j].isPunctuation(",") { j += 1 }
                }
                reset()
                k = j
                continue
            case "subscript", "deinit", "operator", "precedencegroup", "import":
                reset()
            default:
                break
            }
        default:
            break
        }
        k += 1
    }
    return levels.count == 1 && branches.depth == 0
}

// MARK: - Package.swift

/// The package's declared minimums and tools version.
struct Manifest {
    /// SwiftPM's deployment targets for a platform that `platforms:` does not list (tools 5.9 and on).
    static let defaultMinimums = ["10.13", "12.0", "12.0", "4.0", "1.0"]

    var minimums = Availability()
    /// The minimums as Package.swift spells them (`15` for `.v15`), with `(default)` for the others.
    var spellings = Manifest.defaultMinimums.map { $0 + " (default)" }
    let toolsVersion: Version

    init(text: String, path: String) throws {
        // `// swift-tools-version: 6.0` (or `:6.0;(xcode)`), which must be the first line.
        let firstLine = text.prefix { $0 != "\n" }
        guard let marker = firstLine.range(of: "swift-tools-version:"),
            let version = Version(
                firstLine[marker.upperBound...].drop { $0 == " " }.prefix { $0.isNumber || $0 == "." })
        else { throw Failure("\(path): its first line is no `// swift-tools-version: X.Y`") }
        toolsVersion = version
        for (k, text) in Manifest.defaultMinimums.enumerated() { minimums.versions[k] = Version(text) ?? .zero }

        // `platforms: [.macOS(.v15), .iOS("18.0"), ...]`, read as tokens so that comments do not count.
        let tokens = Lexer.tokens(of: Array(text.utf8))
        guard
            let start = tokens.indices.first(where: {
                tokens[$0].text == "platforms" && $0 + 2 < tokens.count && tokens[$0 + 1].isPunctuation(":")
                    && tokens[$0 + 2].isPunctuation("[")
            })
        else { return }
        let end = closing(tokens, from: start + 2)
        for k in (start + 3)..<max(start + 3, end - 3) where tokens[k].isPunctuation(".") {
            guard let platform = platformIndex(tokens[k + 1].text), tokens[k + 2].isPunctuation("(") else { continue }
            let argument = tokens[k + 3].isPunctuation(".") ? tokens[k + 4] : tokens[k + 3]
            let spelled = argument.text.dropFirst()  // the `v` of `.v15`, the `"` of a string
            guard let version = Version(spelled) else {
                throw Failure("\(path):\(argument.line): cannot read the minimum `\(argument.text)`")
            }
            minimums.versions[platform] = version
            spellings[platform] = spelled.replacingOccurrences(of: "_", with: ".")
        }
    }

    /// `macOS 15, iOS 18, ...`, as the report prints them.
    var described: String {
        platformNames.indices.map { "\(platformNames[$0]) \(spellings[$0])" }.joined(separator: ", ")
    }
}

// MARK: - Syntax newer than the tools version

/// Syntax that a compiler older than `swift` cannot parse: a package using it needs
/// `// swift-tools-version: <swift>` or later. A pattern is a sequence of tokens: a word matches a
/// token's spelling, `a|b` either, `<number>` a number literal. Add a row for each new feature.
let syntaxFeatures: [(pattern: [String], swift: String, feature: String, proposal: String)] = [
    (["nonisolated", "(", "nonsending", ")"], "6.2", "nonisolated(nonsending)", "SE-0461"),
    (["@concurrent"], "6.2", "@concurrent", "SE-0461"),
    (["weak", "let"], "6.2", "weak let", "SE-0481"),
    (["[", "<number>", "of"], "6.2", "[N of T] (InlineArray sugar)", "SE-0483"),
    (["@abi"], "6.2", "@abi", "SE-0476"),
    // Not `class`: `nonisolated class func` is a method.
    (["nonisolated", "struct|enum|actor|protocol|extension"], "6.1", "nonisolated on a type", "SE-0449"),
    ([",", ")"], "6.1", "a trailing comma in a parameter, argument or tuple list", "SE-0439"),
]

/// A row of `syntaxFeatures`, parsed.
struct SyntaxFeature {
    /// Per token, the spellings it may have.
    let pattern: [[String]]
    let swift: Version
    let name: String

    init(_ row: (pattern: [String], swift: String, feature: String, proposal: String)) {
        pattern = row.pattern.map { $0.split(separator: "|").map(String.init) }
        swift = Version(row.swift) ?? .zero
        name = "'\(row.feature)' (\(row.proposal))"
    }

    func matches(_ tokens: [Token], at k: Int) -> Bool {
        guard k + pattern.count <= tokens.count else { return false }
        return pattern.indices.allSatisfy { offset in
            let token = tokens[k + offset]
            return token.kind != .string
                && (pattern[offset].contains(token.text) || (token.kind == .number && pattern[offset] == ["<number>"]))
        }
    }
}

// MARK: - #if conditions

/// Whether a `#if` condition holds on Apple platforms: true (`canImport(Darwin)`), false (`os(Linux)`,
/// `canImport(Glibc)`), or nil when it depends (`os(macOS)`, `DEBUG`, `compiler(>=6.2)`).
func appleValue(_ tokens: ArraySlice<Token>) -> Bool? {
    var k = tokens.startIndex
    func peek(_ text: String) -> Bool { k < tokens.endIndex && tokens[k].text == text }
    func or() -> Bool? {
        var value = and()
        while peek("||") {
            k += 1
            let right = and()
            value = value == true || right == true ? true : value == false && right == false ? false : nil
        }
        return value
    }
    func and() -> Bool? {
        var value = unary()
        while peek("&&") {
            k += 1
            let right = unary()
            value = value == false || right == false ? false : value == true && right == true ? true : nil
        }
        return value
    }
    func unary() -> Bool? {
        guard k < tokens.endIndex else { return nil }
        if peek("!") {
            k += 1
            return unary().map { !$0 }
        }
        if peek("(") {
            k += 1
            let value = or()
            if peek(")") { k += 1 }
            return value
        }
        let name = tokens[k].text
        k += 1
        guard peek("(") else { return nil }
        var argument = ""
        k += 1
        while k < tokens.endIndex, !peek(")") {
            argument += tokens[k].text
            k += 1
        }
        k += 1
        switch name {
        case "os": return platformIndex(argument) == nil ? false : nil
        case "canImport" where argument == "Darwin": return true
        case "canImport" where ["Glibc", "Musl", "WinSDK", "Android", "Bionic", "WASILibc"].contains(argument):
            return false
        default: return nil
        }
    }
    return or()
}

/// `compiler(>=6.2)` or `swift(>=6.2)` as a conjunct of a `#if` condition: an older compiler skips the
/// branch without parsing it, so the branch may use newer syntax.
func compilerFloor(_ tokens: ArraySlice<Token>) -> Version? {
    let list = Array(tokens)
    guard !list.contains(where: { $0.text == "||" }), list.count >= 4 else { return nil }
    return (0...(list.count - 4)).compactMap { k in
        ["compiler", "swift"].contains(list[k].text) && list[k + 1].text == "(" && list[k + 2].text == ">="
            ? Version(list[k + 3].text) : nil
    }.max()
}

// MARK: - The sources

struct Finding {
    let file: String
    let line: Int
    let column: Int
    let message: String
}

/// The names the package declares itself (functions, properties, types, cases, local bindings). A use
/// of one is taken as the package's own: with no types, `.kind` of a package value and `.kind` of a
/// `UTF8.ValidationError` (macOS 26) look the same.
func declaredNames(_ tokens: [Token]) -> Set<String> {
    var names: Set<String> = []
    for k in tokens.indices.dropLast()
    where tokens[k].kind == .identifier && declarationKeywords.contains(tokens[k].text) && tokens[k].text != "extension"
        && tokens[k + 1].kind == .identifier
    {
        names.insert(tokens[k + 1].text)
    }
    return names
}

/// What the audit of the Sources knows: the interfaces, the manifest, the package's own names and the
/// syntax rows newer than the tools version (by the spelling of their first token: one lookup a token).
struct Context {
    let index: Index
    let manifest: Manifest
    let packageNames: Set<String>
    let newerSyntax: [String: [SyntaxFeature]]

    init(index: Index, manifest: Manifest, packageNames: Set<String>) {
        self.index = index
        self.manifest = manifest
        self.packageNames = packageNames
        var newerSyntax: [String: [SyntaxFeature]] = [:]
        for feature in syntaxFeatures.map(SyntaxFeature.init) where feature.swift > manifest.toolsVersion {
            for first in feature.pattern[0] { newerSyntax[first, default: []].append(feature) }
        }
        self.newerSyntax = newerSyntax
    }
}

/// The audit of one file: a walk over its tokens that follows scopes by their braces. A `{` opens a
/// scope with the floor of the one around it, raised:
/// - for the body of `if ... #available(X) ... {` (not its `else`), by X;
/// - for the rest of the scope after `guard ... #available(X) ... else { ... }`, by X;
/// - for the declaration after `@available(X)` (its signature, and its body or members), by X.
/// A `#if` branch that cannot hold on Apple platforms (`#if os(Linux)`, the `#else` of
/// `#if canImport(Darwin)`) is not compiled there: its API uses are not audited.
struct FileAudit {
    struct Level {
        enum Kind { case brace, paren, bracket }
        let kind: Kind
        /// What the scope guarantees; a paren or bracket copies it from where it opens.
        var floor: Availability
        /// An `if` or `guard` whose `{` has not come yet, and the `#available` of its condition.
        var condition: (isGuard: Bool, guards: Availability)? = nil
        /// After `@available(X)`: X, and whether the declaration's keyword has come.
        var declaration: (guards: Availability, sawKeyword: Bool)? = nil
        /// The `else` body of a `guard`: its `#available` holds once the body closes.
        var raiseOnClose: Availability? = nil
    }

    /// A `#if` branch: whether it is compiled on Apple platforms, whether an earlier branch of its
    /// block surely is (then this one is not), and its `compiler(>=X)`.
    struct Branch {
        var skipped: Bool
        var earlierHolds: Bool
        var compilerFloor: Version?
    }

    let file: String
    let tokens: [Token]
    let context: Context
    private var levels: [Level]
    private var branches = Branches<Level>()
    private var branchStates: [Branch] = []
    private(set) var findings: [Finding] = []

    init(file: String, tokens: [Token], context: Context) {
        self.file = file
        self.tokens = tokens
        self.context = context
        levels = [Level(kind: .brace, floor: context.manifest.minimums)]
    }

    private var top: Level {
        get { levels[levels.count - 1] }
        set { levels[levels.count - 1] = newValue }
    }

    /// The floor at the current token: the scope's, raised by an `@available` being read.
    private var floor: Availability { top.declaration.map { top.floor.raised(to: $0.guards) } ?? top.floor }

    private var skipped: Bool { branchStates.contains { $0.skipped } }

    mutating func run() {
        var k = 0
        while k < tokens.count { k = step(k) }
        if levels.count != 1 || branches.depth != 0 {
            findings.append(
                Finding(
                    file: file, line: tokens.last?.line ?? 1, column: 1,
                    message: "the audit lost track of this file's braces or #if blocks, so its results here are "
                        + "unreliable; fix scripts/audit-availability.swift (or simplify the construct)"))
        }
    }

    /// Reads the token at `k`; returns the index of the next one to read.
    private mutating func step(_ k: Int) -> Int {
        let token = tokens[k]
        let previous = k > 0 ? tokens[k - 1] : nil
        let next = k + 1 < tokens.count ? tokens[k + 1] : nil
        checkSyntax(at: k)

        switch (token.kind, token.text) {
        case (.pound, "#if"), (.pound, "#elseif"), (.pound, "#else"), (.pound, "#endif"):
            return directive(at: k)

        case (.punctuation, "{"):
            var scope = Level(kind: .brace, floor: top.floor)
            if let condition = top.condition {
                if condition.isGuard {
                    scope.raiseOnClose = condition.guards
                } else {
                    scope.floor = scope.floor.raised(to: condition.guards)
                }
                top.condition = nil
            } else if let declaration = top.declaration {
                scope.floor = scope.floor.raised(to: declaration.guards)
                top.declaration = nil
            }
            levels.append(scope)

        case (.punctuation, "}"):
            if levels.count > 1, top.kind == .brace {
                let closed = levels.removeLast()
                if let guards = closed.raiseOnClose { top.floor = top.floor.raised(to: guards) }
            }

        case (.punctuation, "("), (.punctuation, "["):
            levels.append(Level(kind: token.text == "(" ? .paren : .bracket, floor: floor))

        case (.punctuation, ")"), (.punctuation, "]"):
            if levels.count > 1, top.kind != .brace { levels.removeLast() }

        case (.pound, "#available"), (.pound, "#unavailable"):
            // `if #unavailable(X) { fallback } else { ... }` is not understood: its `else` is not guarded.
            guard next?.isPunctuation("(") ?? false else { break }
            let arguments = readAvailability(tokens, from: k + 1)
            if token.text == "#available", let condition = top.condition {
                top.condition = (condition.isGuard, condition.guards.raised(to: arguments.introduced))
            }
            return arguments.end + 1

        case (.attribute, "@available") where next?.isPunctuation("(") ?? false:
            let arguments = readAvailability(tokens, from: k + 1)
            if arguments.restricts || arguments.unavailable {
                // Several `@available` of one declaration add up.
                let earlier = top.declaration.flatMap { $0.sawKeyword ? nil : $0.guards } ?? Availability()
                top.declaration = (earlier.raised(to: arguments.introduced), false)
            }
            return arguments.end + 1

        case (.attribute, let word):
            use(word, at: k, in: context.index.free)  // an attached macro: `@TaskLocal`

        case (.pound, let word):
            use(word, at: k, in: context.index.free)  // a freestanding macro: `#isolation`

        case (.identifier, let word) where previous?.isPunctuation(".") ?? false:
            // A member: `Task.immediateDetached`, `task.escalatePriority`, `.init`.
            use(word, at: k, in: context.index.member)

        case (.identifier, "if"), (.identifier, "guard"):
            top.condition = (token.text == "guard", Availability())

        case (.identifier, let word) where declarationKeywords.contains(word) && !isClassModifier(tokens, k):
            // The keyword of the declaration after `@available`, or of the next declaration.
            if let declaration = top.declaration {
                top.declaration = declaration.sawKeyword ? nil : (declaration.guards, true)
            }

        case (.identifier, let word):
            if let previous, previous.kind == .identifier, previous.text != "extension",
                declarationKeywords.contains(previous.text) || previous.text == "import"
            {
                break  // a name being declared (an extension's is a use of the type)
            }
            let afterOpenOrComma = previous.map { $0.isPunctuation("(") || $0.isPunctuation(",") } ?? false
            if afterOpenOrComma, top.kind == .paren, next?.isPunctuation(":") ?? false {
                break  // an argument or tuple label: `f(priority: ...)`
            }
            if !keywords.contains(word) { use(word, at: k, in: context.index.free) }

        default:
            break
        }
        return k + 1
    }

    /// Reports `name` at token `k` when its declarations are newer than the floor here.
    private mutating func use(_ name: String, at k: Int, in names: [String: Availability]) {
        guard !skipped, let availability = names[name], !availability.platforms(laterThan: floor).isEmpty else {
            return
        }
        guard !context.packageNames.contains(name.first == "#" || name.first == "@" ? String(name.dropFirst()) : name)
        else { return }
        // The guard to write: every platform where the name is newer than the declared minimum.
        let newer = availability.platforms(laterThan: context.manifest.minimums).map {
            "\(platformNames[$0]) \(availability.versions[$0])"
        }
        findings.append(
            Finding(
                file: file, line: tokens[k].line, column: tokens[k].column,
                message: "'\(name)' is available from \(newer.joined(separator: " / ")) (declared minimums: "
                    + "\(context.manifest.described)); guard it with "
                    + "if #available(\(newer.joined(separator: ", ")), *) and keep a fallback"))
    }

    /// Syntax newer than the tools version starting at token `k`. Every `#if` branch counts (an older
    /// compiler parses them all), except under `compiler(>=X)` with X new enough.
    private mutating func checkSyntax(at k: Int) {
        let token = tokens[k]
        guard token.kind != .string,
            let candidates = context.newerSyntax[token.kind == .number ? "<number>" : token.text]
        else { return }
        for feature in candidates where feature.matches(tokens, at: k) {
            if branchStates.contains(where: { ($0.compilerFloor ?? .zero) >= feature.swift }) { continue }
            let tools = context.manifest.toolsVersion
            findings.append(
                Finding(
                    file: file, line: token.line, column: token.column,
                    message:
                        "\(feature.name) needs Swift \(feature.swift), newer than the declared swift-tools-version "
                        + "\(tools); raise `// swift-tools-version:` to \(feature.swift) or avoid it"))
        }
    }

    /// `#if`, `#elseif`, `#else`, `#endif` at token `k`; returns the index after its condition.
    private mutating func directive(at k: Int) -> Int {
        let text = tokens[k].text
        let end = text == "#if" || text == "#elseif" ? conditionEnd(tokens, after: k) : k + 1
        let condition = tokens[(k + 1)..<end]
        switch text {
        case "#if":
            let value = appleValue(condition)
            branches.enter(levels)
            branchStates.append(
                Branch(skipped: value == false, earlierHolds: value == true, compilerFloor: compilerFloor(condition)))
        case "#endif":
            branches.exit(&levels)
            _ = branchStates.popLast()
        default:
            branches.next(&levels)
            guard var branch = branchStates.popLast() else { break }
            let value = text == "#else" ? true : appleValue(condition)
            branch.skipped = branch.earlierHolds || value == false
            branch.earlierHolds = branch.earlierHolds || (text == "#elseif" && value == true)
            branch.compilerFloor = text == "#else" ? nil : compilerFloor(condition)
            branchStates.append(branch)
        }
        return end
    }
}

// MARK: - Main

func run() throws -> Int32 {
    var arguments = Array(CommandLine.arguments.dropFirst())
    let listNames = arguments.first == "--names"
    if listNames { arguments.removeFirst() }
    guard arguments.count >= 2 else {
        throw Failure("usage: audit [--names] <package-root> <module.swiftinterface>...")
    }
    let root = arguments[0]
    let manifestPath = root + "/Package.swift"
    guard let manifestText = try? String(contentsOfFile: manifestPath, encoding: .utf8) else {
        throw Failure("\(manifestPath): cannot read it")
    }
    let manifest = try Manifest(text: manifestText, path: manifestPath)

    var index = Index()
    var modules: [String] = []
    for path in arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure("\(path): cannot read it") }
        let before = index.declarations
        let balanced = collect(interface: Lexer.tokens(of: [UInt8](data)), into: &index)
        // Thousands of declarations in Swift, hundreds in the others. An audit that collects none
        // passes everything, so a file it cannot read is an error, not an empty list.
        guard balanced, index.declarations - before >= 100 else {
            throw Failure(
                "\(path): read \(index.declarations - before) declarations\(balanced ? "" : " and unbalanced braces"); "
                    + "is it a .swiftinterface? (scripts/audit-availability.swift may need an update)")
        }
        modules.append(URL(fileURLWithPath: path).deletingLastPathComponent().deletingPathExtension().lastPathComponent)
    }
    let newer = (index.free.map { ($0.key, "free", $0.value) } + index.member.map { ($0.key, "member", $0.value) })
        .filter { !$0.2.platforms(laterThan: manifest.minimums).isEmpty }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    if listNames {
        for (name, context, availability) in newer {
            let platforms = availability.platforms(laterThan: manifest.minimums)
            print(
                "\(name) (\(context)): "
                    + platforms.map { "\(platformNames[$0]) \(availability.versions[$0])" }.joined(separator: ", "))
        }
        return 0
    }

    // Resolved, since the enumerator does not descend into a symbolic link.
    let sources = URL(fileURLWithPath: root + "/Sources").resolvingSymlinksInPath().path
    let files = (FileManager.default.enumerator(atPath: sources)?.compactMap { $0 as? String } ?? [])
        .filter { $0.hasSuffix(".swift") }.sorted()
    // No file would pass the audit without auditing anything.
    guard !files.isEmpty else { throw Failure("\(root)/Sources: no .swift file to audit") }
    var tokensByFile: [(file: String, tokens: [Token])] = []
    for file in files {
        guard let data = FileManager.default.contents(atPath: sources + "/" + file) else {
            throw Failure("\(sources)/\(file): cannot read it")
        }
        tokensByFile.append(("Sources/" + file, Lexer.tokens(of: [UInt8](data))))
    }
    let packageNames = tokensByFile.reduce(into: Set<String>()) { $0.formUnion(declaredNames($1.tokens)) }
    let context = Context(index: index, manifest: manifest, packageNames: packageNames)

    var findings: [Finding] = []
    for (file, tokens) in tokensByFile {
        var audit = FileAudit(file: file, tokens: tokens, context: context)
        audit.run()
        findings += audit.findings
    }
    for finding in findings { print("\(finding.file):\(finding.line):\(finding.column): \(finding.message)") }
    let summary =
        "\(index.declarations) interface declarations (\(modules.joined(separator: ", ")); \(newer.count) names "
        + "newer than the minimums), \(files.count) files scanned under Sources"
    if findings.isEmpty {
        print("audit-availability: no unguarded use of newer API or syntax; \(summary)")
        return 0
    }
    let message =
        "\naudit-availability: \(findings.count) use(s) above are newer than the package declares "
        + "(\(manifest.described); swift-tools-version \(manifest.toolsVersion)); \(summary)\n"
    FileHandle.standardError.write(Data(message.utf8))
    return 1
}

do {
    exit(try run())
} catch {
    FileHandle.standardError.write(Data("audit-availability: \(error)\n".utf8))
    exit(2)
}
