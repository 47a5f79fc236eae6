// Test helpers shared by every test target: gates, counters, deadlines, a seeded PRNG.
import Container
import Dispatch
import Synchronization
public import Testing

/// A one-shot gate: tasks `wait()` until the test calls `open()`. No sleeps involved.
public final class Gate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A gate that honours cancellation: `wait()` throws `CancellationError` when the waiting task is cancelled.
public final class CancellableGate: Sendable {
    private let state = Locked<(open: Bool, waiters: [Int: CheckedContinuation<Void, any Error>], next: Int)>(
        (false, [:], 0))

    public init() {}

    public func wait() async throws {
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

    public func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Records a test failure; returns `Void`, so `guard ... else { return fail("...") }` reads in one line.
public func fail(_ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
    Issue.record(comment, sourceLocation: sourceLocation)
}

/// A thread-safe counter.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    @discardableResult public func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    public var count: Int { value.load(ordering: .relaxed) }
}

/// Thrown when a wait exceeded its timeout; the test fails.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Runs `operation`, failing the test with `TimedOut` if it does not finish within `seconds`.
///
/// The operation runs in its own task and is not awaited past the deadline: a wait that never
/// ends (a gate nobody opens, a continuation nobody resumes) fails the test instead of
/// hanging it. The deadline is a Dispatch timer, not a sleep, and orders nothing.
@discardableResult
public func withTimeout<T: Sendable>(
    _ seconds: Double = 10, _ what: String = "the operation",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    let worker = Task {
        do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        race.finish(.failure(TimedOut(what: what)))
    }
    let result = await race.outcome()
    if case .failure(let error as TimedOut) = result {
        worker.cancel()
        Issue.record("timed out after \(seconds)s waiting for \(what)", sourceLocation: sourceLocation)
        throw error
    }
    return try result.get()
}

/// The first of an operation's result and its deadline; later ones are ignored.
private final class DeadlineRace<T: Sendable>: Sendable {
    private let state = Locked<
        (result: Result<T, any Error>?, waiter: CheckedContinuation<Result<T, any Error>, Never>?)
    >(
        (nil, nil))

    func finish(_ result: Result<T, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<T, any Error>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func outcome() async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// An ordered, thread-safe list of strings.
public final class OrderLog: Sendable {
    private let storage = Locked<[String]>([])
    public init() {}
    public func append(_ item: String) { storage.withLock { $0.append(item) } }
    public var items: [String] { storage.withLock { $0 } }
}

/// A small deterministic PRNG for reproducible random graphs.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
