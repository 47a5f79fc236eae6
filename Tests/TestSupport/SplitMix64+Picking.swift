public import ContainerTesting

// Seeded choices for fuzz tests: the same seed gives the same cases on every run.
extension SplitMix64 {
    /// A number of `range`, from the next 64 bits (modulo its size: the same on every platform).
    public mutating func int(_ range: Range<Int>) -> Int {
        precondition(!range.isEmpty)
        return range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// `true` about `percent` times in 100.
    public mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    /// One of `items`.
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }
}
