import Dispatch

/// Runs CPU-heavy synchronous work on a Dispatch thread and awaits it.
///
/// Swift Testing runs synchronous tests on the cooperative pool, which has one thread per core:
/// a test that computes for seconds there starves every concurrent async test of threads (and
/// their deadlines fire). Work run here leaves the pool free: a queue of its own targets
/// Dispatch's overcommitting pool, which adds a thread when all are busy (`DispatchQueue.global()`
/// has one per core on Linux, and would starve the same way).
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "TestSupport.offThePool").async { continuation.resume(with: Result { try work() }) }
    }
}
