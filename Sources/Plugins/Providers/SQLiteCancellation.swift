import Container
internal import Dispatch
internal import Synchronization

// Apple SDKs ship SQLite as the `SQLite3` module; elsewhere the `CSQLite` system library.
#if canImport(SQLite3)
    internal import SQLite3
#else
    internal import CSQLite
#endif

/// Ends a connection's SQLite work when the task that asked for it is cancelled (a node's
/// `timeoutMs`, a reset, a cancelled caller), instead of letting it wait out the busy timeout.
///
/// ``run(_:)`` makes one for the work it runs (a task-local) and cancels it from the calling
/// task's cancellation handler. While it is attached to a connection (``attach(_:busyTimeout:)``, only
/// by the thread that holds the connection), three things watch it:
///
/// - a **busy handler** replaces `sqlite3_busy_timeout`: it waits for a lock in short steps up
///   to the busy timeout, and gives up at once when cancelled (the cancellation wakes it);
/// - a **progress handler** stops a long statement every 1,000 virtual-machine steps once
///   cancelled;
/// - ``cancel()`` calls `sqlite3_interrupt` on the attached connection.
///
/// `sqlite3_interrupt` may be called from another thread while the connection works, but never
/// on a closed connection: it is only called under ``attachment``'s lock, and the connection is
/// detached under that lock before anyone can close it (closing needs the connection, which
/// the attached work holds).
final class SQLiteCancellation: Sendable {
    /// The cancellation of the current task's database work, when it runs inside ``run(_:)``.
    @TaskLocal static var current: SQLiteCancellation?

    private struct Attachment {
        let handle: OpaquePointer
        let busyTimeout: Duration
        /// When the current wait for a lock began (SQLite counts the handler's calls per wait).
        var busySince: ContinuousClock.Instant?
    }

    private let cancelled = Atomic<Bool>(false)
    private let attachment = Locked<Attachment?>(nil)
    /// Signalled by ``cancel()``, so a busy handler waiting for a lock wakes at once.
    private let wakeUp = DispatchSemaphore(value: 0)

    /// How long the busy handler waits between tries, by try (SQLite's own schedule), in ms.
    private static let steps: [Int] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// Whether the work was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Runs `body` (blocking SQLite work) on a Dispatch thread, so that the current task's
    /// cancellation ends its waits and statements.
    ///
    /// Off the Swift concurrency pool on purpose: the pool has one thread per core, and a
    /// thread blocked in a wait for a lock is a thread that cannot run the timer that would
    /// cancel the wait. On a 2-core machine, two such waits froze every node timeout.
    /// - Throws: `CancellationError` when the task was cancelled and `body` failed (SQLite then
    ///   reports the interruption or the lock it gave up on); otherwise what `body` threw. A
    ///   result `body` returns despite a late cancellation is returned: its work is committed.
    static func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        let cancellation = SQLiteCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                // A queue of its own targets Dispatch's overcommitting pool, which adds a thread
                // when all are blocked; `DispatchQueue.global()` has one per core on Linux, like
                // the concurrency pool, and blocking it starves the same timers.
                DispatchQueue(label: "Plugins.SQLiteCancellation.run").async {
                    continuation.resume(
                        with: Swift.Result {
                            do {
                                return try $current.withValue(cancellation) { try body() }
                            } catch {
                                if cancellation.isCancelled { throw CancellationError() }
                                throw error
                            }
                        })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Marks the work cancelled: a waiting busy handler gives up, a running statement is interrupted.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        attachment.withLock { attachment in
            if let attachment { sqlite3_interrupt(attachment.handle) }
        }
        wakeUp.signal()
    }

    /// Watches `handle` for this work: installs the busy and progress handlers.
    /// - Returns: `false` when the work was already cancelled: then nothing stays attached, and
    ///   the caller runs nothing.
    func attach(_ handle: OpaquePointer, busyTimeout: Duration) -> Bool {
        attachment.withLock { $0 = Attachment(handle: handle, busyTimeout: busyTimeout) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_busy_handler(
            handle,
            { context, count in
                guard let context else { return 0 }
                let cancellation = Unmanaged<SQLiteCancellation>.fromOpaque(context).takeUnretainedValue()
                return cancellation.keepWaiting(afterBusy: count) ? 1 : 0
            }, context)
        sqlite3_progress_handler(
            handle, 1_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<SQLiteCancellation>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            }, context)
        // Checked after attaching: a cancellation from now on interrupts; one before is seen here.
        guard !isCancelled else {
            detach(handle, busyTimeout: busyTimeout)
            return false
        }
        return true
    }

    /// Stops watching `handle` and restores the plain busy timeout. After it returns, ``cancel()``
    /// no longer touches the connection, so it may be closed or used by other work.
    func detach(_ handle: OpaquePointer, busyTimeout: Duration) {
        attachment.withLock { $0 = nil }
        sqlite3_progress_handler(handle, 0, nil, nil)
        sqlite3_busy_timeout(handle, Self.milliseconds(busyTimeout))
    }

    /// The busy handler: whether SQLite should try for the lock again. Called on the thread that
    /// runs the statement, so at most one wait is in progress.
    private func keepWaiting(afterBusy count: Int32) -> Bool {
        guard !isCancelled else { return false }
        let now = ContinuousClock.now
        let budget: (since: ContinuousClock.Instant, timeout: Duration)? = attachment.withLock { attachment in
            guard attachment != nil else { return nil }
            if count == 0 || attachment?.busySince == nil { attachment?.busySince = now }
            guard let since = attachment?.busySince, let timeout = attachment?.busyTimeout else { return nil }
            return (since, timeout)
        }
        guard let budget else { return false }
        let remaining = budget.timeout - (now - budget.since)
        guard remaining > .zero else { return false }
        let step = min(.milliseconds(Self.steps[min(max(0, Int(count)), Self.steps.count - 1)]), remaining)
        // Signalled only by `cancel()`: stop waiting at once.
        if wakeUp.wait(timeout: .now() + .nanoseconds(Self.nanoseconds(step))) == .success { return false }
        return !isCancelled
    }

    /// `duration` in whole milliseconds, clamped to what SQLite takes.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(0, milliseconds))
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
