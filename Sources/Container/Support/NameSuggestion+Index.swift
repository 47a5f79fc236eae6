extension NameSuggestion {
    /// Candidates prepared once for many "did you mean" queries: lowercased a single time, in
    /// one byte buffer, bucketed by length; with a budget that bounds the work of all queries.
    ///
    /// Validation asks one question per unknown name. Without an index each question lowercases
    /// and compares every declared name, so 100,000 unknown names against 100,000 declared
    /// ones is 10¹⁰ comparisons. With it, a question compares only the candidates of a length
    /// within the allowed distance, each with a banded Levenshtein that stops early, repeated
    /// questions are answered from a memo, and the total work (cells of the distance tables)
    /// is capped by `budget`: past it, questions get no suggestion rather than more time.
    package struct Index {
        /// The default budget, in table cells and candidates visited: about 10 ms of an
        /// optimized build. Enough for every unknown name of a config of thousands of services,
        /// and for a few dozen among 100,000 services of similar lengths.
        package static let defaultBudget = 1 << 23

        private let names: [String]
        /// Every candidate's lowercased bytes, back to back; candidate `i` is
        /// `bytes[starts[i]..<starts[i + 1]]`.
        private var bytes: [UInt8] = []
        private var starts: [Int] = []
        /// Candidate positions by the length of their lowercased bytes, in candidate order.
        private var byLength: [Int: [Int]] = [:]
        private var prepared = false
        private var remaining: Int
        private var answers: [String: String?] = [:]

        /// An index of `names`, in priority order (ties go to the earlier name). Nothing is
        /// computed until the first query.
        package init(_ names: [String], budget: Int = Index.defaultBudget) {
            self.names = names
            self.remaining = budget
        }

        /// The work left in the budget, in table cells and candidates visited.
        package var remainingBudget: Int { remaining }

        /// The candidate closest to `name`, if it is a likely typo (see ``NameSuggestion``); `nil`
        /// also when the budget does not cover the question.
        package mutating func closest(to name: String) -> String? {
            if let known = answers[name] { return known }
            guard remaining > 0 else { return nil }
            prepare()
            var target: [UInt8] = []
            NameSuggestion.appendLowercased(name, to: &target)
            let answer = search(target, excluding: name)
            answers[name] = .some(answer)
            return answer
        }

        private mutating func prepare() {
            guard !prepared else { return }
            prepared = true
            starts.reserveCapacity(names.count + 1)
            for (position, name) in names.enumerated() {
                starts.append(bytes.count)
                NameSuggestion.appendLowercased(name, to: &bytes)
                byLength[bytes.count - starts[position], default: []].append(position)
            }
            starts.append(bytes.count)
            remaining -= bytes.count
        }

        private mutating func search(_ target: [UInt8], excluding name: String) -> String? {
            let allowed = NameSuggestion.allowedDistance(forLength: target.count)
            var best = -1
            var bestDistance = allowed
            var work = 0
            let budget = remaining
            let bytes = self.bytes
            let starts = self.starts
            // The target's byte counts, for the bag-distance filter.
            var counts = [Int32](repeating: 0, count: 256)
            for byte in target { counts[Int(byte)] += 1 }
            // Two rows of the longest candidate compared: target.count + allowed bytes.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (target.count + allowed + 1)) { rows in
                target.withUnsafeBufferPointer { target in
                    bytes.withUnsafeBufferPointer { bytes in
                        counts.withUnsafeMutableBufferPointer { counts in
                            lengths: for length in max(0, target.count - allowed)...(target.count + allowed) {
                                for position in byLength[length] ?? [] {
                                    // A visit and its filter cost about two cells of a table.
                                    work += 2
                                    // Past the budget the answer could be wrong: give none.
                                    if work > budget { break lengths }
                                    // An earlier candidate may tie the best one; a later one must beat it.
                                    let bound = best < 0 || position < best ? bestDistance : bestDistance - 1
                                    guard bound >= abs(length - target.count) else { continue }
                                    let candidate = UnsafeBufferPointer(
                                        rebasing: bytes[starts[position]..<starts[position + 1]])
                                    guard
                                        NameSuggestion.bagDistance(candidate, target: target, counts: counts)
                                            <= bound,
                                        let distance = NameSuggestion.boundedDistance(
                                            target, candidate, bound: bound, rows: rows, work: &work),
                                        names[position] != name
                                    else { continue }
                                    best = position
                                    bestDistance = distance
                                }
                            }
                        }
                    }
                }
            }
            guard work <= remaining else {
                remaining = 0
                return nil
            }
            remaining -= work
            return best < 0 ? nil : names[best]
        }
    }
}
