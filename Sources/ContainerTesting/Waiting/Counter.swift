import Synchronization

/// A thread-safe counter: how many times something happened, read from any task.
///
/// ```swift
/// let runs = Counter()
/// let spec = ServiceSpec(.database) { _ in runs.increment(); return Database.inMemory }
/// // ...
/// #expect(runs.count == 1)
/// ```
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// A counter at zero.
    public init() {}

    /// Adds one and returns the new count.
    @discardableResult
    public func increment() -> Int { value.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue }

    /// The count.
    public var count: Int { value.load(ordering: .acquiring) }

    /// Sets the count back to zero.
    public func reset() { value.store(0, ordering: .releasing) }
}
