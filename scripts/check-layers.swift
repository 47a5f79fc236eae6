// Checks that the folders of Sources/Container are layers: a file may name the types of its own
// folder and of the folders below it, never of a folder above (docs/architecture.md, "Layers").
//
//     swift scripts/check-layers.swift            # checks Sources/Container
//     swift scripts/check-layers.swift --self-test
//
// A type belongs to the folder of the file that declares it at the top level. Identifiers are
// read from the code with comments and string literals removed, so a doc comment may mention a
// type of a layer above (a link in the docs is not a dependency).

import Foundation

/// The folders of Sources/Container, bottom first.
let layers = [
    "Support", "Keys", "Reports", "Snapshot", "Trace", "Graph", "Plugins", "Build", "Coordinator", "Scopes",
]

struct Violation: CustomStringConvertible {
    let file: String
    let folder: String
    let type: String
    let typeFolder: String
    var description: String {
        "\(file): names \(type) of \(typeFolder)/, a layer above \(folder)/ (move one of them, or depend the other way)"
    }
}

/// `source` without comments and string literals.
func code(of source: String) -> String {
    var result = ""
    result.reserveCapacity(source.utf8.count)
    var characters = Array(source.unicodeScalars)[...]
    var blockDepth = 0
    while let scalar = characters.first {
        let next = characters.dropFirst().first
        if blockDepth > 0 {
            if scalar == "*" && next == "/" {
                blockDepth -= 1
                characters = characters.dropFirst(2)
            } else if scalar == "/" && next == "*" {
                blockDepth += 1
                characters = characters.dropFirst(2)
            } else {
                if scalar == "\n" { result.unicodeScalars.append("\n") }
                characters = characters.dropFirst()
            }
            continue
        }
        if scalar == "/" && next == "/" {
            while let first = characters.first, first != "\n" { characters = characters.dropFirst() }
            continue
        }
        if scalar == "/" && next == "*" {
            blockDepth = 1
            characters = characters.dropFirst(2)
            continue
        }
        if scalar == "\"" {
            // A string literal (single or triple quoted): skipped, interpolations included.
            let triple = characters.prefix(3).elementsEqual("\"\"\"".unicodeScalars)
            characters = characters.dropFirst(triple ? 3 : 1)
            while let first = characters.first {
                if first == "\\" {
                    characters = characters.dropFirst(2)
                    continue
                }
                if triple ? characters.prefix(3).elementsEqual("\"\"\"".unicodeScalars) : first == "\"" {
                    characters = characters.dropFirst(triple ? 3 : 1)
                    break
                }
                if first == "\n" { result.unicodeScalars.append("\n") }
                characters = characters.dropFirst()
            }
            result += "\"\""
            continue
        }
        result.unicodeScalars.append(scalar)
        characters = characters.dropFirst()
    }
    return result
}

/// The types `code` declares at the top level (nesting depth zero).
func topLevelTypes(in code: String) -> [String] {
    let keywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
    var names: [String] = []
    var depth = 0
    for line in code.split(separator: "\n", omittingEmptySubsequences: false) {
        if depth == 0 {
            let words = line.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == "@") })
            for (index, word) in words.enumerated() where keywords.contains(String(word)) && index + 1 < words.count {
                let name = String(words[index + 1])
                if let first = name.first, first.isUppercase { names.append(name) }
                break
            }
        }
        for character in line {
            if character == "{" { depth += 1 } else if character == "}" { depth -= 1 }
        }
    }
    return names
}

/// Capitalized identifiers in `code`.
func identifiers(in code: String) -> Set<String> {
    var result = Set<String>()
    var current = ""
    for character in code {
        if character.isLetter || character.isNumber || character == "_" {
            current.append(character)
        } else {
            if let first = current.first, first.isUppercase { result.insert(current) }
            current = ""
        }
    }
    if let first = current.first, first.isUppercase { result.insert(current) }
    return result
}

/// Every violation among `files` (folder, file name, source).
func violations(_ files: [(folder: String, name: String, source: String)]) -> (found: [Violation], unknown: [String]) {
    var owner: [String: String] = [:]
    var unknown: [String] = []
    let stripped = files.map { (folder: $0.folder, name: $0.name, code: code(of: $0.source)) }
    for file in stripped {
        guard layers.contains(file.folder) else {
            unknown.append("\(file.folder)/\(file.name): folder \(file.folder)/ is not a layer; add it to `layers`")
            continue
        }
        for type in topLevelTypes(in: file.code) where owner[type] == nil { owner[type] = file.folder }
    }
    var found: [Violation] = []
    for file in stripped {
        guard let rank = layers.firstIndex(of: file.folder) else { continue }
        for name in identifiers(in: file.code).sorted() {
            guard let folder = owner[name], let typeRank = layers.firstIndex(of: folder), typeRank > rank else {
                continue
            }
            found.append(Violation(file: "\(file.folder)/\(file.name)", folder: file.folder, type: name, typeFolder: folder))
        }
    }
    return (found, unknown)
}

func selfTest() -> Bool {
    let files: [(folder: String, name: String, source: String)] = [
        ("Keys", "Key.swift", "public struct ServiceKey {}\n// a Tracer in a comment\nlet text = \"Tracer\""),
        ("Trace", "Tracer.swift", "final class Tracer { let key: ServiceKey }"),
        ("Keys", "Bad.swift", "struct Bad { let tracer: Tracer }"),
        ("Graph", "Nested.swift", "enum Outer { struct Inner {} }\nstruct Uses { let trace: Tracer }"),
    ]
    let (found, unknown) = violations(files)
    let expected = ["Keys/Bad.swift names Tracer"]
    let got = found.map { "\($0.file) names \($0.type)" }
    guard got == expected, unknown.isEmpty else {
        print("check-layers self-test failed: expected \(expected), got \(got) \(unknown)")
        return false
    }
    guard topLevelTypes(in: "enum Outer { struct Inner {} }") == ["Outer"] else {
        print("check-layers self-test failed: nested types count as top-level")
        return false
    }
    print("check-layers self-test: ok")
    return true
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--self-test") { exit(selfTest() ? 0 : 1) }
let root = arguments.first ?? "Sources/Container"
guard let enumerator = FileManager.default.enumerator(atPath: root) else {
    print("check-layers: \(root) not found; run from the repository root")
    exit(2)
}
var files: [(folder: String, name: String, source: String)] = []
while let path = enumerator.nextObject() as? String {
    guard path.hasSuffix(".swift"), !path.contains(".docc/") else { continue }
    let components = path.split(separator: "/")
    guard components.count == 2 else {
        print("check-layers: \(root)/\(path): every source file sits in a layer's folder, one level down")
        exit(1)
    }
    let source = try String(contentsOfFile: "\(root)/\(path)", encoding: .utf8)
    files.append((String(components[0]), String(components[1]), source))
}
let (found, unknown) = violations(files)
for problem in unknown { print("check-layers: \(problem)") }
for violation in found { print("check-layers: \(violation)") }
if found.isEmpty && unknown.isEmpty {
    print("check-layers: \(files.count) files in \(layers.count) layers, each naming only its own layer and those below")
    exit(0)
}
exit(1)
