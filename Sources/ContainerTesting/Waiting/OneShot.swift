import Container
import Dispatch

/// One result, set once by whoever comes first (the awaited work, a deadline, a cancellation),
/// and read by one awaiting task.
///
/// The kit's waits are built on it: a ``Gate`` or a ``TraceWatcher`` keeps a ticket per waiter
/// and finishes it when its condition holds, while the waiter's deadline and cancellation race
/// to finish it first. Later results are ignored.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiter: CheckedContinuation<Result<Value, any Error>, Never>?
    }

    private let state = Locked(State())

    init() {}

    /// Sets the result unless one is set; resumes the awaiting task. Returns whether this call set it.
    @discardableResult
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let (won, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<Value, any Error>, Never>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: result)
        return won
    }

    /// Whether a result is set.
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Suspends until a result is set (returns at once when it is).
    func result() async -> Result<Value, any Error> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Value, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Suspends until a result is set, finishing it with ``TimedOut`` after `timeout` and, when
    /// `cancellable`, with `CancellationError` when the awaiting task is cancelled.
    ///
    /// The deadline is a Dispatch timer: it bounds the wait and orders nothing.
    func value(
        cancellable: Bool, timeout: Duration?, what: @autoclosure () -> String, place: String? = nil
    ) async throws -> Value {
        var timer: DispatchWorkItem?
        if let timeout {
            let failure = TimedOut(what: what(), after: timeout, place: place)
            let item = DispatchWorkItem { [weak self] in self?.finish(.failure(failure)) }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval, execute: item)
            timer = item
        }
        defer { timer?.cancel() }
        guard cancellable else { return try await result().get() }
        return try await withTaskCancellationHandler {
            try await result().get()
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}

extension Duration {
    /// The duration as a Dispatch interval (whole nanoseconds, saturating; never negative).
    var dispatchInterval: DispatchTimeInterval {
        .nanoseconds(Int(clamping: max(0, DurationFormat.wholeNanoseconds(self))))
    }
}
