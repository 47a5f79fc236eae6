import Container
import ContainerDemoKit
import Foundation
import Plugins
import Testing

/// What every load must satisfy (Configs/README.md, "Errors" and "Limits").
enum FuzzChecks {
    /// The problems of one load's error, empty when it keeps every documented promise.
    static func problems(
        of error: ConfigError, texts: [String: [UInt8]], secrets: [String] = []
    ) -> [String] {
        var found: [String] = []
        let description = error.description
        for line in description.split(separator: "\n", omittingEmptySubsequences: false) where line.count > 1_000 {
            found.append("a line of \(line.count) characters: \(line.prefix(160))…")
        }
        if let scalar = description.unicodeScalars.first(where: { NameRules_isControl($0) && $0 != "\n" }) {
            found.append("raw control character U+\(String(scalar.value, radix: 16)) in: \(description.prefix(300))")
        }
        for secret in secrets {
            for fragment in fragments(of: secret) where description.contains(fragment) {
                let line = description.split(separator: "\n").first { $0.contains(fragment) } ?? ""
                found.append("secret fragment '\(fragment)' of '\(secret)' in: \(line.prefix(600))")
            }
        }
        for issue in error.issues {
            guard let file = issue.location.file else {
                found.append("issue without a file: \(issue)")
                continue
            }
            guard let line = issue.location.line, let column = issue.location.column else {
                found.append("issue without a line or column: \(issue)")
                continue
            }
            guard line >= 1, column >= 1 else {
                found.append("position \(line):\(column) before the start: \(issue)")
                continue
            }
            guard let bytes = texts[file] else { continue }  // a file the harness did not write
            let lines = lineLengths(bytes)
            if bytes.isEmpty { continue }
            guard line <= lines.count else {
                found.append("line \(line) past the last line \(lines.count): \(issue.description.prefix(300))")
                continue
            }
            if column > lines[line - 1] + 1 {
                found.append(
                    "column \(column) past the end of line \(line) (\(lines[line - 1]) characters): "
                        + "\(issue.description.prefix(300))")
            }
        }
        return found
    }

    /// Control characters (Unicode Cc), as NameRules defines them.
    static func NameRules_isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The characters of each line (a character: a byte that is not a UTF-8 continuation byte),
    /// lines ending as the parser ends them ("\n", "\r\n", a lone "\r").
    static func lineLengths(_ bytes: [UInt8]) -> [Int] {
        var lengths: [Int] = []
        var count = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && (index + 1 >= bytes.count || bytes[index + 1] != 0x0A)) {
                lengths.append(count + 1)  // the line break itself may be the place
                count = 0
            } else if byte & 0xC0 != 0x80 {
                count += 1
            }
            index += 1
        }
        lengths.append(count)
        return lengths
    }

    /// The Redactor's fragments of a secret: itself, every run of 4+ letters, digits and `_`,
    /// and the 4+-character `_`-separated parts of a run.
    static func fragments(of secret: String) -> Set<String> {
        var result: Set<String> = [secret]
        var runs: [String] = []
        var current = ""
        for character in secret {
            if character.isASCII && (character.isLetter || character.isNumber || character == "_") {
                current.append(character)
            } else {
                runs.append(current)
                current = ""
            }
        }
        runs.append(current)
        for run in runs where run.count >= 4 {
            result.insert(run)
            for part in run.split(separator: "_") where part.count >= 4 { result.insert(String(part)) }
        }
        return result
    }
}
