import Container
import Dispatch
import Synchronization
import Testing

/// A one-shot gate: tasks `wait()` until the test calls `open()`. No sleeps involved.
final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A gate that honours cancellation: `wait()` throws `CancellationError` when the waiting task is cancelled.
final class CancellableGate: Sendable {
    private let state = Locked<(open: Bool, waiters: [Int: CheckedContinuation<Void, any Error>], next: Int)>((false, [:], 0))

    func wait() async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Result<Void, any Error>? = state.withLock { state in
                    if state.open { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let resume { continuation.resume(with: resume) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

/// Thrown when a wait exceeded its timeout; the test fails.
struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Runs `operation`, failing with ``TimedOut`` if it does not finish within `seconds`.
/// The timer is a Dispatch deadline, not a sleep, and nothing is ordered by it.
func withTimeout<T: Sendable>(
    _ seconds: Double = 10, _ what: String = "the operation",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let result = try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            await deadline(after: seconds)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
    guard let result else {
        Issue.record("timed out after \(seconds)s waiting for \(what)", sourceLocation: sourceLocation)
        throw TimedOut(what: what)
    }
    return result
}

/// The continuation of one deadline, resumed once by whichever comes first.
private final class DeadlineSlot: Sendable {
    let state = Locked<(continuation: CheckedContinuation<Void, Never>?, done: Bool)>((nil, false))
    func withLock<T>(_ body: (inout (continuation: CheckedContinuation<Void, Never>?, done: Bool)) -> T) -> T {
        state.withLock { body(&$0) }
    }
}

/// Suspends until `seconds` have passed (a Dispatch deadline) or the task is cancelled, whichever is first.
private func deadline(after seconds: Double) async {
    let slot = DeadlineSlot()
    let finish: @Sendable () -> Void = {
        let continuation = slot.withLock { state -> CheckedContinuation<Void, Never>? in
            state.done = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
    await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            let alreadyDone = slot.withLock { state -> Bool in
                if state.done { return true }
                state.continuation = continuation
                return false
            }
            if alreadyDone { continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { finish() }
        }
    } onCancel: {
        finish()
    }
}
