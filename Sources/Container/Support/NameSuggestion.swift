/// "Did you mean ...?" suggestions for misspelt names.
package enum NameSuggestion {
    /// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let target = Array(name.lowercased().utf8)
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(target, Array(candidate.lowercased().utf8))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        // Up to a third of the name may differ, and at least one edit is always allowed.
        let allowed = max(1, min(3, target.count / 3))
        return best.distance <= allowed ? best.name : nil
    }

    /// `"; did you mean 'x'?"` for a likely typo of `name`, or `""` when no candidate is close.
    package static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        closest(to: name, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Levenshtein distance between two byte strings.
    package static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
