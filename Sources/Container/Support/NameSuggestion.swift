/// "Did you mean ...?" suggestions for misspelt names.
///
/// The suggestion for a name is the candidate closest to it by edit distance (Levenshtein, over
/// the lowercased UTF-8 bytes), when it is close enough to be a likely typo: up to a third of
/// the name may differ, at least one and at most three edits. Among equally close candidates
/// the first one wins; the name itself is never suggested.
///
/// Finding it stays cheap on big inputs: only candidates whose length is within the allowed
/// distance are compared, each comparison stops as soon as the distance must exceed the bound
/// (a banded Levenshtein), and an ``Index`` lowercases its candidates once for any number of
/// queries. An ``Index`` also has a work budget, so that even a config of 100,000 services
/// that each name a different undeclared service validates in bounded time: once the budget is
/// spent, messages keep naming the unknown name, without a suggestion.
package enum NameSuggestion {
    /// The largest edit distance a suggestion may have.
    package static let maxDistance = 3

    /// The candidate closest to `name` by edit distance, if it is close enough to be a likely typo.
    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        var index = Index(Array(candidates), budget: .max)
        return index.closest(to: name)
    }

    /// `"; did you mean 'x'?"` for a likely typo of `name`, or `""` when no candidate is close.
    package static func hint(for name: String, among candidates: some Sequence<String>) -> String {
        closest(to: name, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// The edit distance a suggestion for a name of `length` bytes may have.
    static func allowedDistance(forLength length: Int) -> Int { max(1, min(maxDistance, length / 3)) }

    /// Levenshtein distance between two byte strings (unbounded; for tests and small inputs).
    package static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let bound = max(a.count, b.count)
        var work = 0
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (b.count + 1)) { rows in
                    boundedDistance(a, b, bound: bound, rows: rows, work: &work) ?? bound
                }
            }
        }
    }

    /// The Levenshtein distance of `a` and `b` if it is at most `bound`, else `nil`.
    ///
    /// Only the cells within `bound` of the diagonal are computed (a cell farther away costs
    /// more than `bound` edits), and the computation stops at the first row whose cells all
    /// exceed `bound`: O(bound × length) at most, far less for dissimilar strings. `rows` is
    /// scratch space of at least `2 * (b.count + 1)` integers; `work` grows by the cells computed.
    static func boundedDistance(
        _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, bound: Int,
        rows: UnsafeMutableBufferPointer<Int>, work: inout Int
    ) -> Int? {
        let n = a.count
        let m = b.count
        guard bound >= 0, abs(n - m) <= bound, rows.count >= 2 * (m + 1) else { return nil }
        if n == 0 || m == 0 { return max(n, m) }
        // Larger than any distance the band can produce, and safe to add 1 to.
        let outside = bound + 1
        // Two rows in one buffer; `previous` and `current` are their offsets, swapped per row.
        var previous = 0
        var current = m + 1
        for j in 0...m { rows[j] = j <= bound ? j : outside }
        for i in 1...n {
            let low = max(1, i - bound)
            let high = min(m, i + bound)
            rows[current + low - 1] = low == 1 ? i : outside
            var rowMinimum = rows[current + low - 1]
            let byte = a[i - 1]
            for j in low...high {
                let substitution = rows[previous + j - 1] + (byte == b[j - 1] ? 0 : 1)
                let value = min(min(rows[previous + j], rows[current + j - 1]) + 1, substitution, outside)
                rows[current + j] = value
                if value < rowMinimum { rowMinimum = value }
            }
            // The next row reads the cell just right of this row's band as its "above".
            if high < m { rows[current + high + 1] = outside }
            work += high - low + 1
            if rowMinimum > bound { return nil }
            swap(&previous, &current)
        }
        return rows[previous + m] <= bound ? rows[previous + m] : nil
    }

    /// The bag distance of `candidate` and `target`: the larger of the number of bytes each has
    /// that the other lacks, counted as multisets. No edit changes it by more than one, so it
    /// is a lower bound of the edit distance that costs two passes over `candidate` instead of a
    /// table. `counts` holds the target's byte counts; it is left as it was found.
    static func bagDistance(
        _ candidate: UnsafeBufferPointer<UInt8>, target: UnsafeBufferPointer<UInt8>,
        counts: UnsafeMutableBufferPointer<Int32>
    ) -> Int {
        var unmatched = 0
        for byte in candidate {
            counts[Int(byte)] -= 1
            if counts[Int(byte)] < 0 { unmatched += 1 }
        }
        for byte in candidate { counts[Int(byte)] += 1 }
        let missing = target.count - (candidate.count - unmatched)
        return max(unmatched, missing)
    }

    /// Lowercased UTF-8 bytes of `text`, appended to `bytes`; ASCII without a `String` copy.
    static func appendLowercased(_ text: String, to bytes: inout [UInt8]) {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            for byte in text.utf8 {
                bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
            }
        } else {
            bytes.append(contentsOf: text.lowercased().utf8)
        }
    }
}
