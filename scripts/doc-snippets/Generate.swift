// Turns every ```swift block of the documentation into a throwaway Swift package that
// scripts/check-doc-snippets.sh builds. Run from the repository's root:
//
//   swift scripts/doc-snippets/Generate.swift OUTPUT_DIR
//
// The documentation: README.md and every Markdown file of Sources/*/Documentation.docc (a symbolic
// link is read where it points: Configs/README.md, docs/trace-format.md). Each snippet (a block, with
// the blocks marked `continues` after it) becomes a module of its own, so that names never clash:
// its declarations at file scope, its statements in `func snippet() async throws`, each later block's
// statements in a nested `do { }` (they see the earlier ones' names and may shadow them).
// `#sourceLocation` lines map the compiler's diagnostics back to the Markdown file and line.
//
// Prints one line per block, tab-separated, for the script: `compiled|skipped|manifest`,
// `file:line`, then the module, the skip reason or the manifest's folder.
import Foundation

/// What a marker (`<!-- snippet: ... -->` on the line before the fence) says about its block.
struct Marker {
    var skipReason: String?
    var continues = false
    var topLevel = false
    var manifest = false
}

/// One ```swift block of a file.
struct Block {
    /// The file, relative to the repository's root (a symbolic link's target).
    let file: String
    /// The 1-based line of the opening fence.
    let fenceLine: Int
    /// The block's 1-based number among the file's swift blocks.
    let number: Int
    /// The lines between the fences.
    let lines: [String]
    let marker: Marker
    /// The module whose catalog holds the file (its import is implied), or nil for README.md.
    let catalogModule: String?

    var place: String { "\(file):\(fenceLine)" }
}

/// A line of a block with its line in the Markdown file.
struct SourceLine {
    let line: Int
    let text: String
}

/// A snippet: one module of the generated package.
struct Snippet {
    let name: String
    var blocks: [Block]
}

let fileManager = FileManager.default
let root = fileManager.currentDirectoryPath
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let outputArgument = arguments.first else {
    FileHandle.standardError.write(Data("usage: swift scripts/doc-snippets/Generate.swift OUTPUT_DIR\n".utf8))
    exit(2)
}
let output = outputArgument.hasPrefix("/") ? outputArgument : root + "/" + outputArgument
var problems: [String] = []

// MARK: - The documentation files

/// README.md, then every catalog's articles, each file once (by its resolved path).
func documentationFiles() -> [(path: String, module: String?)] {
    var files: [(String, String?)] = [("README.md", nil)]
    let catalogs = ((try? fileManager.contentsOfDirectory(atPath: root + "/Sources")) ?? []).sorted()
    for module in catalogs {
        let catalog = "Sources/\(module)/Documentation.docc"
        guard let enumerator = fileManager.enumerator(atPath: root + "/" + catalog) else { continue }
        var articles: [String] = []
        for case let relative as String in enumerator where relative.hasSuffix(".md") {
            articles.append(catalog + "/" + relative)
        }
        for article in articles.sorted() { files.append((article, module)) }
    }
    var seen: Set<String> = []
    var result: [(path: String, module: String?)] = []
    for (path, module) in files {
        let resolved = URL(fileURLWithPath: root + "/" + path).resolvingSymlinksInPath().path
        let rootPath = URL(fileURLWithPath: root).resolvingSymlinksInPath().path + "/"
        let relative = resolved.hasPrefix(rootPath) ? String(resolved.dropFirst(rootPath.count)) : path
        if seen.insert(relative).inserted { result.append((relative, module)) }
    }
    return result
}

// MARK: - Markers and blocks

func parseMarker(_ text: String, at place: String) -> Marker? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    guard trimmed.hasPrefix("<!--"), trimmed.hasSuffix("-->") else { return nil }
    let body = trimmed.dropFirst(4).dropLast(3).trimmingCharacters(in: .whitespaces)
    guard body.hasPrefix("snippet:") else { return nil }
    let content = body.dropFirst("snippet:".count).trimmingCharacters(in: .whitespaces)
    var marker = Marker()
    if content.hasPrefix("skip") {
        let rest = content.dropFirst(4).trimmingCharacters(in: .whitespaces)
        let reason = rest.hasPrefix("(") && rest.hasSuffix(")") ? String(rest.dropFirst().dropLast()) : ""
        if reason.trimmingCharacters(in: .whitespaces).isEmpty {
            problems.append("\(place): a skipped block needs its reason: <!-- snippet: skip (why) -->")
        }
        marker.skipReason = reason
        return marker
    }
    for option in content.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
        switch option {
        case "continues": marker.continues = true
        case "top-level": marker.topLevel = true
        case "manifest": marker.manifest = true
        default:
            problems.append(
                "\(place): unknown snippet marker '\(option)' (known: skip (reason), continues, top-level, manifest)")
        }
    }
    return marker
}

func blocks(of file: String, module: String?) -> [Block] {
    guard let text = try? String(contentsOfFile: root + "/" + file, encoding: .utf8) else {
        problems.append("\(file): cannot be read")
        return []
    }
    let lines = text.components(separatedBy: "\n")
    var result: [Block] = []
    var index = 0
    var swiftBlocks = 0
    while index < lines.count {
        let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") else {
            if parseMarker(lines[index], at: "\(file):\(index + 1)") != nil {
                let next = index + 1 < lines.count ? lines[index + 1].trimmingCharacters(in: .whitespaces) : ""
                if !next.hasPrefix("```swift") {
                    problems.append(
                        "\(file):\(index + 1): a snippet marker must be the line right before a ```swift fence")
                }
            }
            index += 1
            continue
        }
        let fence = String(trimmed.prefix(3))
        let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
        let language = info.split(separator: " ").first.map(String.init) ?? ""
        var end = index + 1
        while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix(fence) { end += 1 }
        if language == "swift" {
            swiftBlocks += 1
            let marker = index > 0 ? parseMarker(lines[index - 1], at: "\(file):\(index)") : nil
            result.append(
                Block(
                    file: file, fenceLine: index + 1, number: swiftBlocks,
                    lines: Array(lines[(index + 1)..<min(end, lines.count)]),
                    marker: marker ?? Marker(), catalogModule: module))
        }
        index = end + 1
    }
    return result
}

// MARK: - Declarations and statements

/// Tracks brackets across lines, outside strings and comments.
struct Nesting {
    var depth = 0
    var inBlockComment = false
    var inMultilineString = false

    mutating func scan(_ line: String) {
        let chars = Array(line)
        var i = 0
        func at(_ offset: Int, _ text: String) -> Bool {
            let needle = Array(text)
            guard offset + needle.count <= chars.count else { return false }
            return Array(chars[offset..<(offset + needle.count)]) == needle
        }
        /// Skips a one-line string starting after its opening quote; returns the index after its end.
        func skipString(from start: Int) -> Int {
            var j = start
            while j < chars.count {
                if chars[j] == "\\", j + 1 < chars.count, chars[j + 1] == "(" {
                    var parens = 1
                    j += 2
                    while j < chars.count, parens > 0 {
                        if chars[j] == "\"" {
                            j = skipString(from: j + 1)
                            continue
                        }
                        if chars[j] == "(" { parens += 1 }
                        if chars[j] == ")" { parens -= 1 }
                        j += 1
                    }
                    continue
                }
                if chars[j] == "\\" {
                    j += 2
                    continue
                }
                if chars[j] == "\"" { return j + 1 }
                j += 1
            }
            return j
        }
        while i < chars.count {
            if inBlockComment {
                if at(i, "*/") {
                    inBlockComment = false
                    i += 2
                } else {
                    i += 1
                }
                continue
            }
            if inMultilineString {
                if at(i, "\"\"\"") {
                    inMultilineString = false
                    i += 3
                } else {
                    i += 1
                }
                continue
            }
            if at(i, "//") { return }
            if at(i, "/*") {
                inBlockComment = true
                i += 2
                continue
            }
            if at(i, "\"\"\"") {
                inMultilineString = true
                i += 3
                continue
            }
            switch chars[i] {
            case "\"": i = skipString(from: i + 1)
            case "(", "[", "{":
                depth += 1
                i += 1
            case ")", "]", "}":
                depth -= 1
                i += 1
            default: i += 1
            }
        }
    }
}

/// A line that starts a declaration: attributes, modifiers, then the keyword.
let declarationStart =
    #/
    ^ (?: @\w+ (?: \( [^)]* \) )? \s+ )*
    (?: (?: public | private | fileprivate | internal | package | final | nonisolated | indirect | open ) \s+ )*
    (?: import | extension | struct | enum | class | actor | protocol | func | typealias ) \b
    /#
let attributeOnly = #/^@\w+(?:\(.*\))?$/#
let binding = #/^(?:let|var)\s+([A-Za-z_][A-Za-z0-9_]*)\b/#

/// Splits a block into what goes at file scope and what runs in the snippet's function, and the
/// names its statements bind at their top level (read once at the end, so none is "never used").
func split(_ block: Block) -> (declarations: [SourceLine], statements: [SourceLine], bindings: [String]) {
    var declarations: [SourceLine] = []
    var statements: [SourceLine] = []
    var bindings: [String] = []
    var pending: [SourceLine] = []
    var currentIsDeclaration = block.marker.topLevel
    var nesting = Nesting()
    func append(_ line: SourceLine, declaration: Bool) {
        if declaration { declarations.append(line) } else { statements.append(line) }
    }
    for (offset, text) in block.lines.enumerated() {
        let line = SourceLine(line: block.fenceLine + 1 + offset, text: text)
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if nesting.depth > 0 || nesting.inBlockComment || nesting.inMultilineString {
            append(line, declaration: currentIsDeclaration)
        } else if trimmed.isEmpty && pending.isEmpty {
            append(line, declaration: currentIsDeclaration)
        } else if trimmed.isEmpty || trimmed.hasPrefix("//") || trimmed.wholeMatch(of: attributeOnly) != nil {
            pending.append(line)
        } else {
            let isDeclaration = block.marker.topLevel || trimmed.prefixMatch(of: declarationStart) != nil
            for waiting in pending { append(waiting, declaration: isDeclaration) }
            pending = []
            append(line, declaration: isDeclaration)
            currentIsDeclaration = isDeclaration
            if !isDeclaration, let match = trimmed.prefixMatch(of: binding) { bindings.append(String(match.1)) }
        }
        nesting.scan(text)
    }
    for waiting in pending { append(waiting, declaration: currentIsDeclaration) }
    return (declarations, statements, bindings)
}

/// The lines with a `#sourceLocation` wherever they stop following each other in the file.
func located(_ lines: [SourceLine], file: String) -> [String] {
    var result: [String] = []
    var next = -1
    for line in lines {
        if line.line != next { result.append("#sourceLocation(file: \"\(root)/\(file)\", line: \(line.line))") }
        result.append(line.text)
        next = line.line + 1
    }
    if !lines.isEmpty { result.append("#sourceLocation()") }
    return result
}

// MARK: - The generated package

func sanitized(_ text: String) -> String {
    String(text.map { $0.isLetter || $0.isNumber ? $0 : "_" })
}

/// `Container_GettingStarted` for Sources/Container/Documentation.docc/GettingStarted.md.
func fileTag(_ file: String) -> String {
    var path = file
    if path.hasSuffix(".md") { path.removeLast(3) }
    path = path.replacingOccurrences(of: "/Documentation.docc", with: "")
    if path.hasPrefix("Sources/") { path.removeFirst("Sources/".count) }
    return sanitized(path)
}

/// Writes `text` unless the file already holds it, so that an unchanged snippet is not rebuilt.
func write(_ text: String, to path: String) {
    if let existing = try? String(contentsOfFile: path, encoding: .utf8), existing == text { return }
    do {
        try fileManager.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
        problems.append("cannot write \(path): \(error)")
    }
}

let implied: [String: [String]] = [
    "Plugins": ["Plugins"], "ContainerTrace": ["ContainerTrace"], "ContainerTesting": ["ContainerTesting", "Testing"],
]
let importLine = #/^import\s+(\w+)\s*$/#

func source(of snippet: Snippet) -> (text: String, usesPlugins: Bool) {
    var imports: Set<String> = ["Container", "DocSnippetGivens", "Foundation"]
    var declarations: [String] = []
    var body: [String] = []
    var closing: [String] = []
    for (index, block) in snippet.blocks.enumerated() {
        for module in implied[block.catalogModule ?? ""] ?? [] { imports.insert(module) }
        let parts = split(block)
        var kept: [SourceLine] = []
        for line in parts.declarations {
            if let match = line.text.trimmingCharacters(in: .whitespaces).wholeMatch(of: importLine) {
                imports.insert(String(match.1))
            } else {
                kept.append(line)
            }
        }
        declarations += located(kept, file: block.file)
        guard !parts.statements.isEmpty else { continue }
        if index > 0 && !body.isEmpty {
            body.append("do {  // \(block.place) continues")
            closing.insert("}", at: 0)
        }
        body += located(parts.statements, file: block.file)
        body += parts.bindings.map { "_ = \($0)" }
    }
    let usesPlugins = imports.contains("Plugins")
    // The example app's types stand in for an app's own; Plugins has real ones of the same names.
    if !usesPlugins { imports.insert("DocSnippetExampleApp") }
    var text = "// Generated by scripts/check-doc-snippets.sh; do not edit. From:\n"
    for block in snippet.blocks {
        let continues = block.marker.continues ? ", continues" : ""
        text += "//   \(block.place) (swift block \(block.number) of the file)\(continues)\n"
    }
    text += imports.sorted().map { "import \($0)\n" }.joined() + "\n"
    text += declarations.joined(separator: "\n") + "\n"
    if !body.isEmpty {
        text += "\nfunc snippet() async throws {\n" + (body + closing).joined(separator: "\n") + "\n}\n"
    }
    return (text, usesPlugins)
}

// MARK: - Main

var snippets: [Snippet] = []
var report: [String] = []
for (file, module) in documentationFiles() {
    for block in blocks(of: file, module: module) {
        if let reason = block.marker.skipReason {
            report.append("skipped\t\(block.place)\t\(reason)")
        } else if block.marker.manifest {
            let folder = "manifests/\(fileTag(file))_\(block.number)"
            let header = """
                // swift-tools-version: 6.0
                // Generated from \(block.place); do not edit.
                import PackageDescription

                let package = Package(
                    name: "MyApp",

                """
            let firstLine = header.split(separator: "\n", omittingEmptySubsequences: false).count
            write(header + block.lines.joined(separator: "\n") + "\n)\n", to: "\(output)/\(folder)/Package.swift")
            // The generated line of the block's first line, and the file's: for mapping diagnostics back.
            write("\(firstLine)\t\(block.fenceLine + 1)\t\(block.file)\n", to: "\(output)/\(folder)/source.tsv")
            report.append("manifest\t\(block.place)\t\(folder)")
        } else if block.marker.continues {
            if let last = snippets.indices.last, snippets[last].blocks.first?.file == file {
                snippets[last].blocks.append(block)
                report.append("compiled\t\(block.place)\t\(snippets[last].name)")
            } else {
                problems.append("\(block.place): 'continues', but no compiled swift block of this file comes before it")
            }
        } else {
            let snippet = Snippet(name: "Snippet_\(fileTag(file))_\(block.number)", blocks: [block])
            snippets.append(snippet)
            report.append("compiled\t\(block.place)\t\(snippet.name)")
        }
    }
}

let rootName = URL(fileURLWithPath: root).lastPathComponent
var targets: [String] = []
var generated: Set<String> = ["DocSnippetGivens", "DocSnippetExampleApp"]
for snippet in snippets {
    let (text, usesPlugins) = source(of: snippet)
    write(text, to: "\(output)/Sources/\(snippet.name)/Snippet.swift")
    generated.insert(snippet.name)
    targets.append("        snippet(\"\(snippet.name)\"\(usesPlugins ? ", plugins: true" : "")),")
}
for prelude in ["Givens", "ExampleApp"] {
    let path = "\(root)/scripts/doc-snippets/\(prelude).swift"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        problems.append("missing \(path)")
        continue
    }
    // Diagnostics name the committed file, not the copy.
    let located = "#sourceLocation(file: \"\(path)\", line: 1)\n" + text + "\n#sourceLocation()\n"
    write(located, to: "\(output)/Sources/DocSnippet\(prelude)/Generated.swift")
}
// Modules of blocks that no longer exist.
let existing = (try? fileManager.contentsOfDirectory(atPath: output + "/Sources")) ?? []
for stale in existing where !generated.contains(stale) {
    try? fileManager.removeItem(atPath: "\(output)/Sources/\(stale)")
}
write(
    """
    // swift-tools-version: 6.0
    // Generated by scripts/check-doc-snippets.sh; do not edit. Every ```swift block of the docs, one module each.
    import PackageDescription

    // SwiftPM names a path dependency after its folder.
    let root = "\(rootName)"
    let settings: [SwiftSetting] = [
        .swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny"), .unsafeFlags(["-warnings-as-errors"]),
    ]
    let products: [Target.Dependency] = ["Container", "ContainerTrace", "ContainerTesting", "Plugins"].map {
        .product(name: $0, package: root)
    }

    /// A snippet's module: every library product, the givens, and the example app's types unless
    /// it imports Plugins (whose `Database` and `Session` are real).
    func snippet(_ name: String, plugins: Bool = false) -> Target {
        .target(
            name: name, dependencies: products + ["DocSnippetGivens"] + (plugins ? [] : ["DocSnippetExampleApp"]),
            swiftSettings: settings)
    }

    let package = Package(
        name: "DocSnippets",
        platforms: [.macOS(.v15), .iOS(.v18)],
        dependencies: [.package(path: "../..")],
        targets: [
            .target(name: "DocSnippetGivens", dependencies: products, swiftSettings: settings),
            .target(name: "DocSnippetExampleApp", dependencies: products, swiftSettings: settings),
    \(targets.joined(separator: "\n"))
        ]
    )

    """, to: output + "/Package.swift")

for line in report { print(line) }
if !problems.isEmpty {
    // A marker is read twice (as a line, and as its block's marker): each problem once.
    var reported: Set<String> = []
    for problem in problems where reported.insert(problem).inserted {
        FileHandle.standardError.write(Data("check-doc-snippets: \(problem)\n".utf8))
    }
    exit(1)
}
