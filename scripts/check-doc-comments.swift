// Lists every public symbol declared in this package that has no doc comment of its own, and
// exits 1 when there is one (STYLE.md rule 11: `///` on every public symbol). docc itself does not
// warn about undocumented symbols, so scripts/build-docs.sh runs this on the symbol graphs.
//
//   swift scripts/check-doc-comments.swift .build/docs/symbol-graphs/Container ...
//
// Exempt: extension blocks (docc documents the extended type), and witnesses of standard-library
// requirements (`description`, `==`, `hash(into:)`), whose symbol carries the protocol's doc
// comment (its `module` is `Swift`) and whose meaning is the protocol's.
import Foundation

/// One undocumented symbol: where it is declared and its path (`ServiceOptions.Value.null`).
struct Finding: Comparable {
    let place: String
    let line: Int
    let symbol: String

    static func < (lhs: Finding, rhs: Finding) -> Bool { (lhs.place, lhs.line) < (rhs.place, rhs.line) }
}

let root = FileManager.default.currentDirectoryPath + "/"
var findings: [Finding] = []
var problems: [String] = []

for directory in CommandLine.arguments.dropFirst() {
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    if files.isEmpty { problems.append("\(directory): no symbol graphs") }
    for file in files.sorted() where file.hasSuffix(".symbols.json") {
        let path = directory + "/" + file
        guard let data = FileManager.default.contents(atPath: path),
            let graph = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let symbols = graph["symbols"] as? [[String: Any]]
        else {
            problems.append("\(path): not a symbol graph")
            continue
        }
        for symbol in symbols {
            // Symbols without a location are synthesized or come from another module.
            guard let location = symbol["location"] as? [String: Any], let uri = location["uri"] as? String else {
                continue
            }
            let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? ""
            if kind == "swift.extension" || symbol["docComment"] != nil { continue }
            let position = location["position"] as? [String: Any]
            let line = (position?["line"] as? Int ?? 0) + 1
            var place = URL(string: uri)?.path ?? uri
            if place.hasPrefix(root) { place.removeFirst(root.count) }
            let name = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
            findings.append(Finding(place: place, line: line, symbol: name))
        }
    }
}

for problem in problems { print("error: \(problem)") }
for finding in findings.sorted() {
    print(
        "\(finding.place):\(finding.line): warning: public symbol '\(finding.symbol)' has no doc comment; "
            + "add a `///` line")
}
if !findings.isEmpty || !problems.isEmpty {
    print("\(findings.count) public symbol(s) without a doc comment")
    exit(1)
}
