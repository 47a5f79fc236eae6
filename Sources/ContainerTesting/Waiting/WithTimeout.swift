/// Runs `operation`, throwing ``TimedOut`` when it does not finish within `timeout`.
///
/// The operation runs in its own task and is not awaited past the deadline: a wait that never
/// ends (a gate nobody opens, a continuation nobody resumes) fails the test instead of hanging
/// it; the operation's task is then cancelled. The deadline is a Dispatch timer, not a sleep,
/// and orders nothing. Cancelling the calling task cancels the operation.
///
/// ```swift
/// let services = try await withTimeout(.seconds(10), "the build") { try await container.start() }
/// ```
///
/// - Parameters:
///   - timeout: how long to wait (default 60 seconds: generous, as the bound of a hang, not a
///     measure; a whole suite run in parallel under ThreadSanitizer on a 2-core machine kept the
///     cooperative pool busy long enough to break 30).
///   - what: what is awaited, for the error's message.
///   - fileID: the caller's file, for the message that points at the call (default: the call site).
///   - line: the caller's line (default: the call site).
///   - operation: the work.
/// - Throws: ``TimedOut``, or what `operation` throws.
@discardableResult
public func withTimeout<T: Sendable>(
    _ timeout: Duration = .seconds(60), _ what: String = "the operation", fileID: String = #fileID,
    line: Int = #line, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = OneShot<T>()
    let worker = Task {
        do { race.finish(.success(try await operation())) } catch { race.finish(.failure(error)) }
    }
    // The worker is cancelled once the race is decided: at once after a timeout, harmlessly
    // after it finished.
    defer { worker.cancel() }
    return try await withTaskCancellationHandler {
        try await race.value(cancellable: false, timeout: timeout, what: what, place: "\(fileID):\(line)")
    } onCancel: {
        worker.cancel()
    }
}
