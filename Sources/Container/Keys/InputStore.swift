import Synchronization

/// The values an app supplies at run time for its input services (see <doc:DemandDrivenStartUp>),
/// by service name, and the input nodes waiting for one. One per container, shared by its scope
/// instances.
final class InputStore: Sendable {
    /// Thrown to an input node that waits when the container shuts down.
    struct Closed: Error {}

    private struct State {
        var values: [String: any Sendable] = [:]
        var waiters: [String: [Int: CheckedContinuation<any Sendable, any Error>]] = [:]
        var nextWaiter = 0
        var isClosed = false
    }

    private let state = Mutex(State())

    /// The names supplied so far.
    var supplied: Set<String> { state.withLock { Set($0.values.keys) } }

    /// Whether `name` has a value.
    func isSupplied(_ name: String) -> Bool { state.withLock { $0.values[name] != nil } }

    /// Stores `value` for `name` and resumes the nodes waiting for it; returns whether it
    /// replaced an earlier value.
    func supply(_ name: String, _ value: any Sendable) -> Bool {
        let (replaced, waiting) = state.withLock { state in
            let replaced = state.values.updateValue(value, forKey: name) != nil
            return (replaced, state.waiters.removeValue(forKey: name) ?? [:])
        }
        for continuation in waiting.values { continuation.resume(returning: value) }
        return replaced
    }

    /// The value of `name`: at once when supplied, otherwise once it is. Cancelling the task ends
    /// the wait with `CancellationError`; a shutdown ends it with ``Closed``.
    func value(of name: String) async throws -> any Sendable {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer: Result<any Sendable, any Error>? = state.withLock { state in
                    if let value = state.values[name] { return .success(value) }
                    if state.isClosed { return .failure(Closed()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[name, default: [:]][id] = continuation
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters[name]?.removeValue(forKey: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Ends every wait with ``Closed``, now and later (the container shuts down).
    func close() {
        let waiting = state.withLock { state in
            state.isClosed = true
            defer { state.waiters = [:] }
            return state.waiters.values.flatMap(\.values)
        }
        for continuation in waiting { continuation.resume(throwing: Closed()) }
    }
}
