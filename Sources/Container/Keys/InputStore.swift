/// The values an app supplies at run time for its input services (see <doc:DemandDrivenStartUp>),
/// by service name, and the input nodes waiting for one. One per container, shared by its scope
/// instances.
///
/// A value is stored with the type it was supplied as: an input of another type (the graph was
/// reloaded meanwhile) finds it not supplied and waits for a value of its own type.
final class InputStore: Sendable {
    /// Thrown to an input node that waits when the container shuts down.
    struct Closed: ClassifiedError, CustomStringConvertible {
        let name: String
        var failureKind: FailureKind { .permanent }
        var description: String { "the container shut down before input '\(name)' was supplied" }
    }

    /// What ``supply(_:_:type:)`` found.
    struct Supplied {
        /// It replaced an earlier value.
        let replaced: Bool
        /// The generation whose build last read an earlier value of the name, if one did: what it
        /// built from that value is stale.
        let staleReadGeneration: Int?
    }

    private struct Waiter {
        let type: ObjectIdentifier
        let generation: Int
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    private struct Entry {
        var value: any Sendable
        var type: ObjectIdentifier
        var version: Int
    }

    private struct State {
        var values: [String: Entry] = [:]
        /// The version of the last value of each name an input node read, and its build's generation.
        var read: [String: (version: Int, generation: Int)] = [:]
        var waiters: [String: [Int: Waiter]] = [:]
        var nextWaiter = 0
        var nextVersion = 1
        var isClosed = false
    }

    private let state = Locked(State())

    /// Whether `name` has a value of `type`.
    func isSupplied(_ name: String, type: ObjectIdentifier) -> Bool {
        state.withLock { $0.values[name]?.type == type }
    }

    /// Stores `value` (of `type`) for `name` and resumes the nodes of that type waiting for it.
    func supply(_ name: String, _ value: any Sendable, type: ObjectIdentifier) -> Supplied {
        supply(name, value, type: type, noting: { _ in () }).0
    }

    /// Stores `value` (of `type`) for `name` and resumes the nodes of that type waiting for it.
    /// `noting` runs in the same critical section, told whether the value replaced one: what it
    /// returns (the trace's stamped event) comes before anything the resumed nodes do.
    func supply<Note>(
        _ name: String, _ value: any Sendable, type: ObjectIdentifier, noting: (_ replaced: Bool) -> Note
    ) -> (Supplied, Note) {
        let (supplied, resumed, note) = state.withLock {
            state -> (Supplied, [CheckedContinuation<any Sendable, any Error>], Note) in
            let version = state.nextVersion
            state.nextVersion += 1
            let replaced =
                state.values.updateValue(Entry(value: value, type: type, version: version), forKey: name) != nil
            let stale = state.read[name].flatMap { $0.version < version ? $0.generation : nil }
            var resumed: [CheckedContinuation<any Sendable, any Error>] = []
            if let all = state.waiters[name] {
                var waiting = all
                for (id, waiter) in all where waiter.type == type {
                    resumed.append(waiter.continuation)
                    waiting.removeValue(forKey: id)
                }
                if let generation = all.values.filter({ $0.type == type }).map(\.generation).max() {
                    state.read[name] = (version, generation)
                }
                state.waiters[name] = waiting.isEmpty ? nil : waiting
            }
            return (Supplied(replaced: replaced, staleReadGeneration: stale), resumed, noting(replaced))
        }
        for continuation in resumed { continuation.resume(returning: value) }
        return (supplied, note)
    }

    /// The value of `name` of `type`, for a build of `generation`: at once when supplied, otherwise once it is. Cancelling the
    /// task ends the wait with `CancellationError`; a shutdown ends it with ``Closed``.
    func value(of name: String, type: ObjectIdentifier, generation: Int) async throws -> any Sendable {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let answer: Result<any Sendable, any Error>? = state.withLock { state in
                    if let entry = state.values[name], entry.type == type {
                        state.read[name] = (entry.version, generation)
                        return .success(entry.value)
                    }
                    if state.isClosed { return .failure(Closed(name: name)) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[name, default: [:]][id] = Waiter(
                        type: type, generation: generation, continuation: continuation)
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                let waiter = state.waiters[name]?.removeValue(forKey: id)
                if state.waiters[name]?.isEmpty == true { state.waiters[name] = nil }
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Ends every wait with ``Closed``, now and later (the container shuts down).
    func close() {
        let waiting = state.withLock { state in
            state.isClosed = true
            defer { state.waiters = [:] }
            return state.waiters.flatMap { name, waiters in waiters.values.map { (name, $0) } }
        }
        for (name, waiter) in waiting { waiter.continuation.resume(throwing: Closed(name: name)) }
    }
}
