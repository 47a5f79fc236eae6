import Dispatch

/// Runs CPU-heavy synchronous work on a Dispatch thread and awaits it.
///
/// Swift Testing runs synchronous tests on the cooperative pool, which has one thread per core:
/// a test that computes for seconds there starves every concurrent async test of threads (and
/// their deadlines fire). Work run here leaves the pool free.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
