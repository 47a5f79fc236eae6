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
    /// The other states' transitions, sorted by byte within each state: state `s` owns the
    /// edges `edgeStart[s] ..< edgeStart[s + 1]`. Flat arrays: a deep state has one or two
    /// edges, found by a short scan without hashing.
    private let edgeStart: [Int32]
    private let edgeBytes: [UInt8]
    private let edgeTargets: [Int32]
    /// Per state: the state of the longest proper suffix of its path that is a prefix of a pattern.
    private let failure: [Int32]
    /// Per state: the length in bytes of the longest pattern that ends here (0: none), itself
    /// or through its failure links.
    private let longest: [Int32]

    /// Whether the matcher has no pattern.
    var isEmpty: Bool { longest.count <= 1 }

    /// An automaton matching every pattern in `patterns` (empty patterns are ignored).
    init(patterns: some Sequence<[UInt8]>) {
        // The trie, its child lists linked through flat arrays while it is built (one
        // allocation per array, not one per state).
        var root = [Int32](repeating: 0, count: 256)
        var firstChild: [Int32] = [0]
        var nextSibling: [Int32] = [0]
        var byteOf: [UInt8] = [0]
        var longest: [Int32] = [0]
        for pattern in patterns where !pattern.isEmpty {
            var state: Int32 = 0
            for byte in pattern {
                var existing: Int32 = 0
                if state == 0 {
                    existing = root[Int(byte)]
                } else {
                    var child = firstChild[Int(state)]
                    while child != 0 && byteOf[Int(child)] != byte { child = nextSibling[Int(child)] }
                    existing = child
                }
                if existing != 0 {
                    state = existing
                    continue
                }
                let next = Int32(longest.count)
                longest.append(0)
                byteOf.append(byte)
                firstChild.append(0)
                nextSibling.append(firstChild[Int(state)])
                firstChild[Int(state)] = next
                if state == 0 { root[Int(byte)] = next }
                state = next
            }
            longest[Int(state)] = max(longest[Int(state)], Int32(pattern.count))
        }

        var edgeStart: [Int32] = [0, 0]  // the root's edges live in `root`
        edgeStart.reserveCapacity(longest.count + 1)
        var edgeBytes: [UInt8] = []
        var edgeTargets: [Int32] = []
        edgeBytes.reserveCapacity(longest.count)
        edgeTargets.reserveCapacity(longest.count)
        var siblings: [Int32] = []
        for state in 1..<longest.count {
            siblings.removeAll(keepingCapacity: true)
            var child = firstChild[state]
            while child != 0 {
                siblings.append(child)
                child = nextSibling[Int(child)]
            }
            siblings.sort { byteOf[Int($0)] < byteOf[Int($1)] }
            for child in siblings {
                edgeBytes.append(byteOf[Int(child)])
                edgeTargets.append(child)
            }
            edgeStart.append(Int32(edgeBytes.count))
        }
        self.root = root
        self.edgeStart = edgeStart
        self.edgeBytes = edgeBytes
        self.edgeTargets = edgeTargets

        // Breadth first, so a state's failure target (a shorter path) is final before it is used.
        var failure = [Int32](repeating: 0, count: longest.count)
        var queue: [Int32] = root.filter { $0 != 0 }
        queue.reserveCapacity(longest.count)
        var head = 0
        while head < queue.count {
            let state = Int(queue[head])
            head += 1
            for edge in Int(edgeStart[state])..<Int(edgeStart[state + 1]) {
                let (byte, child) = (edgeBytes[edge], edgeTargets[edge])
                queue.append(child)
                var fallback = failure[state]
                while fallback != 0, Self.edge(from: fallback, byte, edgeStart, edgeBytes, edgeTargets) == nil {
                    fallback = failure[Int(fallback)]
                }
                let target =
                    fallback == 0
                    ? root[Int(byte)] : Self.edge(from: fallback, byte, edgeStart, edgeBytes, edgeTargets) ?? 0
                failure[Int(child)] = target
                longest[Int(child)] = max(longest[Int(child)], longest[Int(target)])
            }
        }
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
                if let next = Self.edge(from: state, byte, edgeStart, edgeBytes, edgeTargets) {
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

    /// The transition of a state other than the root on `byte`, if any: a scan of its sorted
    /// edges (a binary search when it has many).
    @inline(__always)
    private static func edge(
        from state: Int32, _ byte: UInt8, _ edgeStart: [Int32], _ edgeBytes: [UInt8], _ edgeTargets: [Int32]
    ) -> Int32? {
        var low = Int(edgeStart[Int(state)])
        var high = Int(edgeStart[Int(state) + 1])
        while high - low > 8 {
            let middle = (low + high) / 2
            // Keep `middle` in range when it may be the edge: the scan below reads [low, high).
            if edgeBytes[middle] < byte { low = middle + 1 } else { high = middle + 1 }
        }
        while low < high {
            let found = edgeBytes[low]
            if found == byte { return edgeTargets[low] }
            if found > byte { return nil }
            low += 1
        }
        return nil
    }
}
