import Container

/// An ordered, thread-safe list of strings: what happened, in the order it happened.
///
/// ```swift
/// let log = OrderLog()
/// let spec = ServiceSpec(.database, tearDown: { _ in log.append("close database") }) { _ in
///     log.append("open database")
///     return Database.inMemory
/// }
/// // ...
/// #expect(log.entries == ["open database", "close database"])
/// ```
public final class OrderLog: Sendable {
    private let storage = Locked<[String]>([])

    /// An empty log.
    public init() {}

    /// Appends `entry`.
    public func append(_ entry: String) { storage.withLock { $0.append(entry) } }

    /// Every entry, in order.
    public var entries: [String] { storage.withLock { $0 } }

    /// How many entries equal `entry`.
    public func count(of entry: String) -> Int { storage.withLock { $0.count { $0 == entry } } }
}
