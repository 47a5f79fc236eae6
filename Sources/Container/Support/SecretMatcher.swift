/// An Aho–Corasick automaton over UTF-8 bytes: finds every occurrence of any of its patterns
/// in one pass over a text, whatever the number of patterns.
///
/// The ``Redactor`` builds one from its secrets and their fragments. Scanning costs
/// O(text bytes): each byte follows at most one edge forward, and the failure links it
/// follows back are paid for by earlier forward steps. Building costs O(pattern bytes).
///
/// Patterns are valid UTF-8, so a match starts on a scalar's first byte and ends on its last:
/// replacing matched bytes always leaves valid UTF-8.
struct SecretMatcher: Sendable {
    /// The root's transitions, one per byte (0: stay at the root). Dense, because most bytes of
    /// a text are read at the root and must cost one array read.
    private let root: [Int32]
    /// Transitions of the other states, keyed by `state << 8 | byte`.
    private let edges: [Int: Int32]
    /// Per state: the state of the longest proper suffix of its path that is a prefix of a pattern.
    private let failure: [Int32]
    /// Per state: the length in bytes of the longest pattern that ends here (0: none), itself
    /// or through its failure links.
    private let longest: [Int32]

    /// Whether the matcher has no pattern.
    var isEmpty: Bool { longest.count <= 1 }

    /// An automaton matching every pattern in `patterns` (empty patterns are ignored).
    init(patterns: some Sequence<[UInt8]>) {
        var root = [Int32](repeating: 0, count: 256)
        var edges: [Int: Int32] = [:]
        var children: [[(byte: UInt8, state: Int32)]] = [[]]
        var longest: [Int32] = [0]
        for pattern in patterns where !pattern.isEmpty {
            var state: Int32 = 0
            for byte in pattern {
                let existing = state == 0 ? root[Int(byte)] : edges[Int(state) << 8 | Int(byte)]
                if let existing, existing != 0 {
                    state = existing
                    continue
                }
                let next = Int32(longest.count)
                longest.append(0)
                children.append([])
                children[Int(state)].append((byte, next))
                if state == 0 { root[Int(byte)] = next } else { edges[Int(state) << 8 | Int(byte)] = next }
                state = next
            }
            longest[Int(state)] = max(longest[Int(state)], Int32(pattern.count))
        }

        // Breadth first, so a state's failure target (a shorter path) is final before it is used.
        var failure = [Int32](repeating: 0, count: longest.count)
        var queue: [Int32] = children[0].map(\.state)
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            for (byte, child) in children[Int(state)] {
                queue.append(child)
                var fallback = failure[Int(state)]
                while true {
                    if fallback == 0 {
                        failure[Int(child)] = root[Int(byte)]
                        break
                    }
                    if let next = edges[Int(fallback) << 8 | Int(byte)] {
                        failure[Int(child)] = next
                        break
                    }
                    fallback = failure[Int(fallback)]
                }
                longest[Int(child)] = max(longest[Int(child)], longest[Int(failure[Int(child)])])
            }
        }
        self.root = root
        self.edges = edges
        self.failure = failure
        self.longest = longest
    }

    /// The byte ranges of `bytes` covered by matches, overlapping and adjacent ones merged, in order.
    func coveredRanges(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var state: Int32 = 0
        for index in bytes.indices {
            let byte = bytes[index]
            while true {
                if state == 0 {
                    state = root[Int(byte)]
                    break
                }
                if let next = edges[Int(state) << 8 | Int(byte)] {
                    state = next
                    break
                }
                state = failure[Int(state)]
            }
            let length = Int(longest[Int(state)])
            guard length > 0 else { continue }
            // Every match ending here is a suffix of the longest one, so the longest covers them
            // all. It may start before ranges found earlier: absorb those.
            var covered = (index + 1 - length)..<(index + 1)
            while let last = ranges.last, last.upperBound >= covered.lowerBound {
                covered = min(last.lowerBound, covered.lowerBound)..<covered.upperBound
                ranges.removeLast()
            }
            ranges.append(covered)
        }
        return ranges
    }
}
