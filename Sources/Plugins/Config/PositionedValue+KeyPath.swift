internal import Container

extension PositionedValue {
    /// The position of the value at `keyPath` (`services[2].options.path`, as the decoder writes
    /// key paths), or of its deepest enclosing value when there is no such value.
    ///
    /// Only the values along the path are visited: an error costs about what reading the path
    /// costs, not a map of every value of the file. Where duplicate keys or keys containing `.`
    /// or `[` make a path ambiguous, the first value in document order wins.
    func position(of keyPath: String) -> SourcePosition {
        var best = (node: self, consumed: 0)
        _ = Array(keyPath.utf8).withUnsafeBufferPointer { path in
            search(path[...], consumed: 0, isRoot: true, best: &best)
        }
        return best.node.position
    }

    /// The value at `keyPath` exactly, or `nil`.
    func node(at keyPath: String) -> PositionedValue? {
        var best = (node: self, consumed: 0)
        let found = Array(keyPath.utf8).withUnsafeBufferPointer { path in
            search(path[...], consumed: 0, isRoot: true, best: &best)
        }
        return found ? best.node : nil
    }

    /// Follows `rest` (UTF-8 of the rest of a key path) down from this node; `true` when it
    /// reaches its end, with `best` the value there. Otherwise `best` is the deepest value met.
    private func search(
        _ rest: Slice<UnsafeBufferPointer<UInt8>>, consumed: Int, isRoot: Bool,
        best: inout (node: PositionedValue, consumed: Int)
    ) -> Bool {
        if consumed > best.consumed { best = (self, consumed) }
        guard let first = rest.first else {
            best = (self, consumed)
            return true
        }
        if isArray {
            let items = elements
            guard first == UInt8(ascii: "["), let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return false }
            var index = 0
            for digit in rest[(rest.startIndex + 1)..<close] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit), index < items.count else { return false }
                index = index * 10 + Int(digit - UInt8(ascii: "0"))
            }
            guard close > rest.startIndex + 1, items.indices.contains(index) else { return false }
            let after = rest[(close + 1)...]
            return items[index].search(
                after, consumed: consumed + (close + 1 - rest.startIndex), isRoot: false, best: &best)
        } else if isObject {
            // `isArray` and `isObject`, not `value`: `value` builds the whole subtree at each call.
            var keyPart = rest
            if !isRoot {
                guard first == UInt8(ascii: ".") else { return false }
                keyPart = rest.dropFirst()
            }
            for member in members {
                Self.countWalked()
                let key = member.key.utf8
                guard keyPart.starts(with: key) else { continue }
                let after = keyPart.dropFirst(key.count)
                // The key must end where the path's component ends (`a` does not match `ab.c`).
                guard after.isEmpty || after.first == UInt8(ascii: ".") || after.first == UInt8(ascii: "[") else {
                    continue
                }
                let step = after.startIndex - rest.startIndex
                if member.value.search(after, consumed: consumed + step, isRoot: false, best: &best) { return true }
            }
            return false
        } else {
            return false
        }
    }
}
